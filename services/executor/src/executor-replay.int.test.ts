import { describe, expect, it } from "vitest";
import { z } from "zod";
import { readCallHistory, readEvent, silentLogger, type Bus } from "@warden/bus";
import { EVENT_TYPES, eventHash, newId } from "@warden/contracts/events";
import { STREAM_CALLS } from "@warden/contracts/subjects";
import { append, approvalRequested, approverKey, eventually, grantFor, policyChecked, unpinnedKey, waitForAck, waitForEvent } from "@warden/testing";
import { useExecutorHarness } from "../test-support/executor-harness.js";
import { defineTool } from "./define-tool.js";
import type { Executor } from "./start-executor.js";

const runs = new Map<string, number>();
/** A tool of the replay domain that counts its runs by call. */
const counted = (spec: { name: string; title: string; description: string; grade: "write" | "send" }) =>
  defineTool({
    ...spec,
    version: "1.0.0",
    input: z.strictObject({ n: z.int() }),
    handler: ({ n }, ctx) => {
      runs.set(ctx.callId, (runs.get(ctx.callId) ?? 0) + 1);
      return n;
    },
  });
const note = counted({ name: "replay.note", title: "Note", description: "Use when testing replays: writes a note, not idempotent.", grade: "write" });
const tell = counted({ name: "replay.tell", title: "Tell", description: "Use when testing replays: tells a customer something, needs a grant.", grade: "send" });

async function history(bus: Bus, callId: string): Promise<string[]> {
  const types = (await readCallHistory(bus, callId)).flatMap((h) => (h.event ? [h.event.type] : []));
  return types.sort((a, b) => EVENT_TYPES.indexOf(a) - EVENT_TYPES.indexOf(b));
}

describe("executor: authorisations delivered again to a recreated consumer", () => {
  const key = approverKey();
  const t = useExecutorHarness();
  let executor: Executor | undefined;
  const start = async () => (executor = await t.start({ bus: t.bus, log: silentLogger(), domain: "replay", tools: [note, tell], approverKeys: [key.publicKeyDerBase64] }));

  it("adds nothing to calls that ran (even under a grant expired since) or were refused, and runs nothing again", async () => {
    await start();
    const allowed = policyChecked(note, { n: 1 });
    const request = approvalRequested(tell, { n: 2 });
    const shortGrant = grantFor(request, key, { expiresAt: new Date(Date.now() + 1_500).toISOString() });
    const forgedRequest = approvalRequested(tell, { n: 3 });
    await append(t.bus, allowed);
    await append(t.bus, request);
    await append(t.bus, shortGrant);
    await append(t.bus, forgedRequest);
    await append(t.bus, grantFor(forgedRequest, unpinnedKey(key.keyId)));
    await waitForEvent(t.bus, "replay", allowed.callId, "ToolCallFinished");
    await waitForEvent(t.bus, "replay", request.callId, "ToolCallFinished");
    await waitForEvent(t.bus, "replay", forgedRequest.callId, "ToolCallRejected");
    const ids = [allowed.callId, request.callId, forgedRequest.callId];
    const before = await Promise.all(ids.map((id) => history(t.bus, id)));

    await executor!.stop();
    for (const durable of ["executor-allowed-replay", "executor-granted-replay"]) await t.bus.jsm.consumers.delete(STREAM_CALLS, durable);
    await eventually(() => expect(Date.now()).toBeGreaterThan(Date.parse(shortGrant.data.expiresAt)), 5_000);
    await start();
    await eventually(async () => {
      for (const durable of ["executor-allowed-replay", "executor-granted-replay"]) {
        const info = await t.bus.jsm.consumers.info(STREAM_CALLS, durable);
        expect(info.num_pending + info.num_ack_pending).toBe(0);
      }
    });
    expect(await Promise.all(ids.map((id) => history(t.bus, id)))).toEqual(before);
    expect(ids.map((id) => runs.get(id) ?? 0)).toEqual([1, 1, 0]);
  });

  it("does not run an old authorisation of a call that was already refused", async () => {
    const pc = policyChecked(note, { n: 4 });
    await executor!.stop();
    const seq = await append(t.bus, pc);
    await append(t.bus, {
      ...pc,
      type: "ToolCallRejected",
      eventId: newId(),
      causationId: pc.eventId,
      causeHash: eventHash(pc),
      data: { stage: "executor", error: { code: "DESCRIPTOR_CHANGED", message: "refused earlier", retryable: false } },
    });
    // the durable made again delivers the authorisation once more, from the stream's start
    for (const durable of ["executor-allowed-replay", "executor-granted-replay"]) await t.bus.jsm.consumers.delete(STREAM_CALLS, durable);
    await start();
    await waitForAck(t.bus, "executor-allowed-replay", seq);
    expect(await readEvent(t.bus, "replay", pc.callId, "ToolCallStarted")).toBeUndefined();
    expect(runs.get(pc.callId)).toBeUndefined();
  });
});
