import { beforeAll, describe, expect, it } from "vitest";
import { appendEvent, encodeJson, requestRpc, type Bus } from "@warden/bus";
import { newId, OwnCallListSchema, OwnCallTraceSchema, type OwnCallsRequestInput } from "@warden/contracts/events";
import { BUCKET_CALLS, ownCallsSubject } from "@warden/contracts/subjects";
import { type Reply } from "@warden/contracts/descriptor";
import { APPROVED_CALL_EVENT_TYPES, useConnections } from "@warden/testing";
import { applyCallEvent, type CallModel } from "@warden/projections";
import { registerSearchAndMessage, requestedCall, useRegistryHarness, uniqueDomain } from "../../test-support/registry-harness.js";

/** Asked as a person does: on their own subject, through the clients account's import. */
const ask = (bus: Bus, principal: string, req: OwnCallsRequestInput): Promise<Reply> => requestRpc(bus, ownCallsSubject(principal), req, 5_000);

function valueOf(reply: Reply): unknown {
  if (!reply.ok) throw new Error(`${reply.error.code}: ${reply.error.message}`);
  return reply.value;
}

describe("the registry's own-calls API (warden.registry.calls.<principal>)", () => {
  const h = useRegistryHarness();
  const domain = uniqueDomain("own");
  const people = useConnections(h, { alice: { kind: "human", name: "alice" }, bob: { kind: "human", name: "bob" } });

  beforeAll(async () => {
    await registerSearchAndMessage(h, domain);
  });

  /** A call requested by `person` itself (the registry validates it); the later events are the test's to append. */
  function newCall(person: Bus, principal: string, outcome: "approved" | "succeeded", args?: Record<string, unknown>) {
    const tool = outcome === "approved" ? `${domain}.message` : `${domain}.search`;
    return requestedCall(h, person, { tool, principal, outcome, ...(args === undefined ? {} : { args }) });
  }

  it("lists a person's own calls newest first, with the projected state where there is one, and no one else's", async () => {
    const first = await newCall(people.alice, "alice", "succeeded");
    const second = await newCall(people.alice, "alice", "approved");
    const third = await newCall(people.alice, "alice", "succeeded", { query: "<script>alert(1)</script>" });
    await newCall(people.bob, "bob", "succeeded");
    // the projector's model of the first call (the registry reads it; no projector runs here)
    const model = first.events.reduce<CallModel | undefined>((m, e, i) => applyCallEvent(m, e, i + 1), undefined)!;
    await (await h.bus.kvm.open(BUCKET_CALLS)).put(first.callId, encodeJson(model));

    const list = OwnCallListSchema.parse(valueOf(await ask(people.alice, "alice", { kind: "list" })));
    expect(list.total).toBe(3);
    expect(list.calls.map((c) => c.callId)).toEqual([third.callId, second.callId, first.callId]);
    expect(list.calls.every((c) => c.principal === "alice")).toBe(true);
    expect(list.calls[0]).toMatchObject({ status: "requested", tool: `${domain}.search`, argsPreview: '{"query":"<script>alert(1)</script>"}' });
    expect(list.calls[2]).toMatchObject({ status: "succeeded", mode: "llm" });
    expect(list.calls[2]!.durationMs).toBe(Date.parse(model.lastTs) - Date.parse(model.requestedAt ?? model.firstTs));

    const two = OwnCallListSchema.parse(valueOf(await ask(people.alice, "alice", { kind: "list", limit: 2 })));
    expect(two.calls.map((c) => c.callId)).toEqual([third.callId, second.callId]);
    const bobs = OwnCallListSchema.parse(valueOf(await ask(people.bob, "bob", { kind: "list" })));
    expect(bobs.calls.map((c) => c.principal)).toEqual(["bob"]);
  });

  it("traces a person's own call: every event in stream order with its sequence", async () => {
    const call = await newCall(people.alice, "alice", "approved");
    for (const t of ["ToolPolicyChecked", "ApprovalRequested", "ApprovalGranted", "ToolCallStarted", "ToolCallFinished"] as const) {
      expect((await appendEvent(h.bus, call.of(t))).status).toBe("written");
    }
    const trace = OwnCallTraceSchema.parse(valueOf(await ask(people.alice, "alice", { kind: "trace", callId: call.callId })));
    expect(trace.entries.map((e) => e.event.type)).toEqual(APPROVED_CALL_EVENT_TYPES);
    const seqs = trace.entries.map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
  });

  it("answers NOT_FOUND for another person's call, and the server refuses asking on another's subject", async () => {
    const call = await newCall(people.alice, "alice", "succeeded");
    expect(await ask(people.bob, "bob", { kind: "trace", callId: call.callId })).toMatchObject({ ok: false, error: { code: "NOT_FOUND" } });
    expect(await ask(people.bob, "bob", { kind: "trace", callId: newId() })).toMatchObject({ ok: false, error: { code: "NOT_FOUND" } });
    const asAlice = await ask(people.bob, "alice", { kind: "list" });
    expect(asAlice).toMatchObject({ ok: false, error: { code: "FORBIDDEN" } });
  });

  it("refuses a malformed request with INVALID_REQUEST", async () => {
    for (const bad of [{ kind: "list", limit: 0 }, { kind: "trace", callId: "a.b" }, { kind: "all" }, { kind: "list", extra: 1 }]) {
      const r = await requestRpc(people.alice, ownCallsSubject("alice"), bad, 5_000);
      expect(r, JSON.stringify(bad)).toMatchObject({ ok: false, error: { code: "INVALID_REQUEST" } });
    }
  });
});
