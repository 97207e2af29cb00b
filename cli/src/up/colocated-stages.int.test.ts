import { describe, expect, it } from "vitest";
import { consumerName, DURABLE_REGISTRY, STREAM_CALLS } from "@warden/contracts";
import { POLICY_STAGE } from "@warden/policy";
import { useTestNats } from "@warden/testing";
import { credsVariableOf, startColocatedStages } from "./colocated-stages.js";

describe("registry and policy stages in one process", () => {
  const t = useTestNats();

  it("refuses a stage that may not share a process, and a stage without its own credentials", async () => {
    await expect(startColocatedStages(["registry", "approver"], { NATS_URL: t.nats.url })).rejects.toThrow(/approver cannot share a process/);
    await expect(startColocatedStages(["registry", "policy"], { NATS_URL: t.nats.url, NATS_CREDS: "/shared.creds" })).rejects.toThrow(
      /WARDEN_REGISTRY_NATS_CREDS is not set: each stage connects as its own identity/,
    );
  });

  // each identity may create only its own durable, so both existing shows each stage connected as itself
  it("runs both stages, each on its own durable and as its own identity, and stops them", async () => {
    const env: NodeJS.ProcessEnv = { NATS_URL: t.nats.url, LOG_LEVEL: "silent" };
    for (const name of ["registry", "policy"] as const) env[credsVariableOf(name)] = (await t.nats.home.addIdentity({ kind: "service", name, role: name })).creds;
    const stages = await startColocatedStages(["registry", "policy"], env);
    try {
      expect(stages.names).toEqual(["registry", "policy"]);
      for (const durable of [consumerName(DURABLE_REGISTRY), consumerName(POLICY_STAGE)]) {
        expect((await t.bus.jsm.consumers.info(STREAM_CALLS, durable)).config.durable_name).toBe(durable);
      }
    } finally {
      await stages.stop();
    }
  });
});
