import { describe, expect, it } from "vitest";
import { silentLogger } from "@warden/bus";
import { consumerName, STREAM_CALLS } from "@warden/contracts/subjects";
import { DURABLE_REGISTRY } from "@warden/contracts/permissions";
import { POLICY_STAGE } from "@warden/policy";
import { useTestNats } from "@warden/testing";
import { credsVariableOf, loadColocatedConfig, startColocatedStages } from "./colocated-stages.js";

describe("registry and policy stages in one process", () => {
  const t = useTestNats();

  it("refuses a stage that may not share a process, a stage without its own credentials, and a bad setting of a stage", () => {
    expect(() => loadColocatedConfig(["registry", "approver"], { NATS_URL: t.nats.url })).toThrow(/approver cannot share a process/);
    expect(() => loadColocatedConfig(["registry", "policy"], { NATS_URL: t.nats.url, NATS_CREDS: "/shared.creds" })).toThrow(/WARDEN_REGISTRY_NATS_CREDS is not set: each stage connects as its own identity/);
    const creds = { WARDEN_REGISTRY_NATS_CREDS: "/r.creds", WARDEN_POLICY_NATS_CREDS: "/p.creds" };
    expect(() => loadColocatedConfig(["registry", "policy"], { ...creds, WARDEN_POLICY_CONCURRENCY: "lots" })).toThrow(/WARDEN_POLICY_CONCURRENCY/);
    // the process's own connection is the first stage's identity
    expect(loadColocatedConfig(["policy", "registry"], creds).NATS_CREDS).toBe("/p.creds");
  });

  // each identity may create only its own durable, so both existing shows each stage connected as itself
  it("runs both stages, each on its own durable and as its own identity, and stops them", async () => {
    const env: NodeJS.ProcessEnv = { NATS_URL: t.nats.url, LOG_LEVEL: "silent" };
    for (const name of ["registry", "policy"] as const) env[credsVariableOf(name)] = (await t.nats.home.addIdentity({ kind: "service", name, role: name })).creds;
    const stages = await startColocatedStages(loadColocatedConfig(["registry", "policy"], env), { log: silentLogger() });
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
