import { sign } from "node:crypto";
import { describe, expect, it } from "vitest";
import { type WardenEvent } from "@warden/contracts/events";
import { subjectOfEvent } from "@warden/contracts/subjects";
import { approverKey, SYNTHETIC_APPROVER_KEY, syntheticCall } from "@warden/testing";
import { type Checkpoint } from "./checkpoint.js";
import { sealMessages } from "./seal-messages.js";
import { verifyEvidence, type StoredMessage } from "./verify-evidence.js";

const notary = approverKey();
const signer = { keyId: notary.keyId, sign: (p: Uint8Array) => sign(null, p, notary.privateKey).toString("base64") };

function messagesOf(events: readonly WardenEvent[], fromSeq = 1): StoredMessage[] {
  return events.map((e, i) => ({ seq: fromSeq + i, subject: subjectOfEvent(e), data: Buffer.from(JSON.stringify(e)) }));
}

/** Checkpoints of `per` messages each over `messages`, chained from #0 as the notary writes them. */
const seal = (messages: readonly StoredMessage[], per: number): Checkpoint[] => sealMessages(messages, per, signer, new Date("2030-01-01T00:00:00Z"));

const verify = (messages: readonly StoredMessage[], checkpoints: readonly Checkpoint[], firstSeq?: number) =>
  verifyEvidence({
    messages,
    checkpoints,
    notaryKeys: [notary.publicKeyDerBase64],
    approverKeys: [SYNTHETIC_APPROVER_KEY.publicKeyDerBase64],
    complete: true,
    ...(firstSeq === undefined ? {} : { firstSeq }),
  });

describe("verifyEvidence over a stream whose oldest messages retention aged out", () => {
  // six calls of five events: seq 1-30, sealed seven at a time
  const events = Array.from({ length: 6 }, (_, i) => syntheticCall({ callId: `r${i}`, outcome: "succeeded" })).flat();
  const all = messagesOf(events);
  const checkpoints = seal(all, 7);
  // retention took the first call and the first three events of the second (seq 1-8): r1's
  // ToolCallStarted and outcome remain, their causes are gone
  const kept = all.slice(8);

  it("verifies the whole stream with no findings", () => {
    const report = verify(all, checkpoints, 1);
    expect(report.findings).toEqual([]);
    expect(report.agedOut).toBe(0);
  });

  it("counts the sealed messages before the first sequence as aged out, and a call cut by retention is no finding", () => {
    const report = verify(kept, checkpoints, 9);
    expect(report.findings).toEqual([]);
    expect(report.agedOut).toBe(8);
    expect(report.sealedThrough).toBe(30);
  });

  it("still reports the same messages as removed when the stream says nothing was aged out", () => {
    const report = verify(kept, checkpoints, 1);
    expect(report.findings.filter((f) => f.kind === "event_removed").map((f) => f.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(report.findings.filter((f) => f.kind === "chain_cause_missing").map((f) => f.callId)).toEqual(["r1"]);
    expect(report.agedOut).toBe(0);
  });

  it("still reports a missing cause in a call whose request retention kept", () => {
    const [request, validated] = syntheticCall({ callId: "late", outcome: "succeeded" });
    // the answer to `validated`, appended without it: its cause was never written
    const [, , checked] = syntheticCall({ callId: "late", outcome: "succeeded" });
    const tail = messagesOf([request!, checked!], 31);
    const report = verify([...kept, ...tail], checkpoints, 9);
    expect(validated).toBeDefined();
    expect(report.findings.map((f) => [f.kind, f.callId])).toEqual([["chain_cause_missing", "late"]]);
    expect(report.unsealed.map((u) => u.seq)).toEqual([31, 32]);
  });
});
