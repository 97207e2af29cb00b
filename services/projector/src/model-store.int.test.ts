import { describe, expect, it } from "vitest";
import { kvGetJson } from "@warden/bus";
import { BUCKET_APPROVALS } from "@warden/contracts/subjects";
import { ApprovalInboxRecordSchema } from "@warden/contracts/read-models";
import { APPROVALS_MODEL } from "@warden/projections";
import { syntheticCall, useTestNats } from "@warden/testing";
import { ModelStore } from "./model-store.js";

describe("a read model store", () => {
  const t = useTestNats();

  it("applies a decision to an approval that another copy created (regression: a guessed-empty key was taken as absent)", async () => {
    const events = syntheticCall({ callId: "c1", outcome: "approved", tool: "customer.message" }).map((event, i) => ({ seq: i + 1, event }));
    const requested = events.filter((e) => e.event.type === "ApprovalRequested");
    const granted = events.filter((e) => e.event.type === "ApprovalGranted");
    const kv = await t.bus.kvm.open(BUCKET_APPROVALS);
    const one = new ModelStore(kv, APPROVALS_MODEL);
    const other = new ModelStore(kv, APPROVALS_MODEL);
    expect(await one.update("c1-a", requested)).toBe(true);
    expect(await other.update("c1-a", granted)).toBe(true);
    expect((await kvGetJson(kv, "c1-a", ApprovalInboxRecordSchema))?.value).toMatchObject({ status: "granted", seq: granted[0]!.seq });
    // the first copy's cached revision is stale now: its next write reads the key again
    expect(await one.update("c1-a", [...requested, ...granted])).toBe(false);
  });
});
