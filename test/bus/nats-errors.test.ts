import { describe, expect, it } from "vitest";
import { useTestNats } from "@warden/testing";
import { BUCKET_APPROVAL_LOCKS, STREAM_CALLS } from "@warden/contracts/subjects";
import { isNoAnswer, isNotFound, isPermissionViolation, isRevisionConflict, unlessNotFound } from "@warden/bus";

async function failureOf(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error("expected a failure");
}

describe("NATS errors are told apart by code and class, not by message text", () => {
  // `bus` (admin) sets up; the agent is refused what it may not do
  const t = useTestNats(async (nats) => ({ agent: await nats.connectAs({ kind: "agent", name: "agent-errs" }) }));

  it("a compare-and-set that lost is a revision conflict, on create and on update", async () => {
    const kv = await t.bus.kvm.open(BUCKET_APPROVAL_LOCKS);
    const rev = await kv.create("errs-key", new Uint8Array([1]));
    const created = await failureOf(kv.create("errs-key", new Uint8Array([2])));
    const updated = await failureOf(kv.update("errs-key", new Uint8Array([3]), rev + 100));
    expect([isRevisionConflict(created), isRevisionConflict(updated)]).toEqual([true, true]);
    expect(isNotFound(updated)).toBe(false);
  });

  it("a missing consumer is not found, and unlessNotFound turns only that into undefined", async () => {
    const missing = await failureOf(t.bus.jsm.consumers.info(STREAM_CALLS, "no-such-durable"));
    expect([isNotFound(missing), isRevisionConflict(missing)]).toEqual([true, false]);
    expect(await unlessNotFound(t.bus.jsm.consumers.info(STREAM_CALLS, "no-such-durable"))).toBeUndefined();
    await expect(unlessNotFound(Promise.reject(new Error("timeout")))).rejects.toThrow("timeout");
  });

  it("a request the server refuses this identity is a permission violation", async () => {
    const refused = await failureOf(t.agent.nc.request("warden.registry.register.kb", new Uint8Array(), { timeout: 2_000 }));
    expect(isPermissionViolation(refused)).toBe(true);
    expect(isPermissionViolation(new Error("permissions violation, said somebody"))).toBe(false);
  });

  it("a request nobody answers is a no-answer (worth asking again), not a refusal", async () => {
    const unanswered = await failureOf(t.bus.nc.request("warden.nobody.listens", new Uint8Array(), { timeout: 2_000 }));
    expect([isNoAnswer(unanswered), isPermissionViolation(unanswered)]).toEqual([true, false]);
    const refused = await failureOf(t.agent.nc.request("warden.registry.register.kb", new Uint8Array(), { timeout: 2_000 }));
    expect(isNoAnswer(refused)).toBe(false);
  });
});
