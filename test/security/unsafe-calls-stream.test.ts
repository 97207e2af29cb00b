import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DiscardPolicy, type StreamConfig } from "@nats-io/jetstream";
import { callsStreamConfig, ensureTopology, TopologyError, type Bus } from "@warden/bus";
import { STREAM_CALLS } from "@warden/contracts/subjects";
import { SERVICE_ROLES, type IdentitySpecInput } from "@warden/contracts/permissions";
import { startTestNats, type TestNats } from "@warden/testing";
import { expectRefused, rawRequest } from "./refusals.js";

/**
 * Services never create or change WARDEN_CALLS; they check it at start and refuse to run on one
 * that lets history be rewritten, naming the setting. Each case provisions the stream afresh as
 * the admin, with one unsafe setting.
 */
describe("services refuse to start on an unsafe WARDEN_CALLS", () => {
  let nats: TestNats;
  let admin: Bus;
  const services: IdentitySpecInput[] = [
    ...SERVICE_ROLES.map((role) => ({ kind: "service" as const, name: `svc-${role}`, role })),
    { kind: "executor", name: "svc-executor", domains: ["kb"] },
  ];

  beforeAll(async () => {
    nats = await startTestNats();
    // the admin identity, connected without provisioning anything yet
    admin = await nats.connectAs({ kind: "admin", name: "admin" });
  });
  afterAll(async () => nats.stop());

  async function provisionCallsStream(overrides: Partial<StreamConfig>): Promise<void> {
    await admin.jsm.streams.delete(STREAM_CALLS).catch(() => undefined);
    await admin.jsm.streams.add({ ...callsStreamConfig(admin), ...overrides });
    // the rest of the topology; the admin's own check refuses the unsafe stream as well
    await ensureTopology(admin).catch((err: unknown) => {
      if (!(err instanceof TopologyError) || Object.keys(overrides).length === 0) throw err;
    });
  }

  const unsafe: [string, Partial<StreamConfig>, RegExp][] = [
    ["max_msgs_per_subject 5", { max_msgs_per_subject: 5 }, /max_msgs_per_subject is 5/],
    ["deny_delete false", { deny_delete: false }, /deny_delete is off/],
    ["deny_purge false", { deny_purge: false }, /deny_purge is off/],
    ["discard old", { discard: DiscardPolicy.Old, discard_new_per_subject: false }, /discard is old/],
    ["a max_age of one minute", { max_age: 60 * 1_000_000_000, duplicate_window: 30 * 1_000_000_000 }, /max_age is 60 s/],
  ];

  it.each(unsafe)("makes every service's start-up check throw a TopologyError naming %s", async (_what, overrides, names) => {
    await provisionCallsStream(overrides);
    for (const spec of services) {
      const bus = await nats.connectAs(spec);
      const started = ensureTopology(bus);
      await expect(started, spec.name).rejects.toBeInstanceOf(TopologyError);
      await expect(started, spec.name).rejects.toThrow(names);
      // nor can the service make the stream safe (or worse) itself: only the admin changes it
      await expectRefused(rawRequest(bus, `$JS.API.STREAM.UPDATE.${STREAM_CALLS}`, callsStreamConfig(bus)));
      await bus.close();
    }
  });

  it("lets every service start once the admin provisions a safe WARDEN_CALLS", async () => {
    await provisionCallsStream({});
    for (const spec of services) {
      const bus = await nats.connectAs(spec);
      await expect(ensureTopology(bus)).resolves.toBeUndefined();
      await bus.close();
    }
  });
});
