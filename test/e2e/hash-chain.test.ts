import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { encodeJson, readEvent, type Bus } from "@warden/bus";
import {
  EVENT_TYPES,
  eventHash,
  messageHash,
  newId,
  TERMINAL_EVENT_TYPES,
  type EventType,
} from "@warden/contracts/events";
import { callEventSubject, parseCallSubject } from "@warden/contracts/subjects";
import { sha256Hex } from "@warden/contracts/json";
import { readStream } from "@warden/projector";
import { createAgentClient } from "@warden/sdk";
import type { SubagentDescriptorInput } from "@warden/subagent";
import { callEvents, eventually } from "@warden/testing";
import { handMadeRequest } from "../support/hand-made-request.js";
import { outputOf, SUBAGENT_TEST_POLICY, useSubagentWarden } from "./subagent-fixture.js";

// RFC 8785's reference implementation (a CommonJS module whose typings NodeNext reads as a namespace)
const canonicalize = createRequire(import.meta.url)("canonicalize") as (value: unknown) => string | undefined;

const READER: SubagentDescriptorInput = {
  name: "agent.reader",
  title: "Reader",
  description: "Use when a support question needs looking into with the knowledge base.",
  instructions: "You look things up for a support desk.",
  model: "m-chain",
  allowedTools: ["kb.search"],
};

interface StoredMessage {
  readonly seq: number;
  readonly subject: string;
  readonly data: Uint8Array;
  /** The message as JSON (as an auditor reads it), when it is JSON at all. */
  readonly json: unknown;
}

function asJson(data: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(data));
  } catch {
    return undefined;
  }
}

/** Every message of the calls stream, as stored. */
async function storedMessages(bus: Bus): Promise<StoredMessage[]> {
  const out: StoredMessage[] = [];
  await readStream(bus, {}, (r) => void out.push({ seq: r.seq, subject: r.subject, data: r.data, json: asJson(r.data) }));
  return out;
}

/** An event's envelope fields as stored (read without the schema, as a verifier would). */
interface StoredEnvelope {
  readonly type: EventType;
  readonly eventId: string;
  readonly callId: string;
  readonly causationId: string | null;
  readonly causeHash: string | null;
}

const isEnvelope = (json: unknown): json is StoredEnvelope =>
  typeof json === "object" && json !== null && typeof (json as { eventId?: unknown }).eventId === "string" && typeof (json as { type?: unknown }).type === "string";

describe("every event names its cause by hash: a call's events form a hash chain", () => {
  // sends wait an hour for a person; a model's write expires after a second
  const policy = { ...SUBAGENT_TEST_POLICY, approvalTtlSeconds: { write: 1, send: 3600 } };
  const s = useSubagentWarden([READER], { policy }, async ({ w }) => {
    const botBus = await w.agentBus("support-bot");
    return { botBus, bot: createAgentClient({ bus: botBus, principal: "support-bot", timeoutMs: 20_000 }), alice: await w.approver("alice") };
  });

  const pendingItem = async (approvalId: string | undefined) => {
    const inbox = await s.alice.pending();
    if (!inbox.ok) throw new Error(inbox.error.message);
    const item = inbox.value.find((p) => p.approvalId === approvalId);
    expect(item).toBeDefined();
    return item!;
  };

  const untilTerminal = (domain: string, callId: string) =>
    eventually(async () => {
      const types = (await callEvents(s.w.bus, callId)).map((e) => e.type);
      expect(types.some((t) => (TERMINAL_EVENT_TYPES as readonly string[]).includes(t)), `${domain} ${callId}: ${types.join(", ")}`).toBe(true);
    });

  it("holds on every path a call can take, from the raw bytes stored in the stream", async () => {
    const calls: [domain: string, callId: string][] = [];
    const message = (text: string) => ({ customerId: `C-chain-${text}`, text });

    // an allowed read
    const read = await s.bot.call("kb.search", { query: "refund" }, { mode: "llm" });
    expect(read).toMatchObject({ ok: true });
    calls.push(["kb", read.callId]);

    // a send granted by a person, then run
    const granted = await s.bot.call("customer.message", message("grant"), { mode: "plan" });
    expect(granted).toMatchObject({ status: "awaiting_approval" });
    const grantItem = await pendingItem(granted.approvalId);
    expect(await s.alice.approve(grantItem.approvalId, grantItem.argsHash)).toMatchObject({ ok: true });
    calls.push(["customer", granted.callId]);

    // a send denied by a person
    const denied = await s.bot.call("customer.message", message("deny"), { mode: "plan" });
    const denyItem = await pendingItem(denied.approvalId);
    expect(await s.alice.deny(denyItem.approvalId, denyItem.argsHash, "no")).toMatchObject({ ok: true });
    calls.push(["customer", denied.callId]);

    // a model's write nobody decides: it expires
    const expired = await s.bot.call("ticket.submit", { title: "t", body: "b", customerId: "C-chain" }, { mode: "llm" });
    // its 1 s may already have run out when the answer reaches a loaded machine's agent
    expect(["awaiting_approval", "expired"]).toContain(expired.status);
    calls.push(["ticket", expired.callId]);

    // an agent may not claim mode human: the policy denies
    const policyDenied = await s.bot.call("customer.message", message("human"), { mode: "human" });
    expect(policyDenied).toMatchObject({ ok: false, status: "rejected" });
    calls.push(["customer", policyDenied.callId]);

    // a tool the registry does not know
    const unknown = await s.bot.call("kb.nope", { query: "x" }, { mode: "llm" });
    expect(unknown).toMatchObject({ ok: false, error: { code: "UNKNOWN_TOOL" } });
    calls.push(["kb", unknown.callId]);

    // requests the registry cannot read: bytes that are not JSON, and a request with a member no
    // schema knows (its rejection answers the request as stored, the member included)
    const notJson = newId();
    await s.botBus.js.publish(callEventSubject("kb", notJson, "ToolCallRequested", "support-bot"), new TextEncoder().encode("{not json"));
    const strayId = newId();
    const stray = { ...handMadeRequest({ callId: strayId, tool: "kb.search", principal: "support-bot", mode: "llm", data: { args: { query: "refund" } } }), note: "not part of any request" };
    await s.botBus.js.publish(callEventSubject("kb", strayId, "ToolCallRequested", "support-bot"), encodeJson(stray));
    for (const callId of [notJson, strayId]) {
      const rejected = await eventually(async () => {
        const r = await readEvent(s.w.bus, "kb", callId, "ToolCallRejected");
        expect(r).toBeDefined();
        return r!;
      });
      expect(rejected.data.error.code).toBe("INVALID_REQUEST");
    }

    // a delegation: the subagent's own call records its views, and its child call re-enters at the top
    s.model.script("m-chain", [{ toolCalls: [{ name: "kb__search", arguments: { query: "refund" } }] }, { content: "Found the refund article." }]);
    const delegated = await s.bot.call("agent.reader", { task: "What is the refund policy?" }, { mode: "plan" });
    expect(outputOf(delegated).childCalls.map((c) => c.status)).toEqual(["succeeded"]);
    calls.push(["agent", delegated.callId]);

    for (const [domain, callId] of calls) await untilTerminal(domain, callId);

    const messages = await storedMessages(s.w.bus);
    const byEventId = new Map<string, StoredMessage>();
    for (const m of messages) {
      if (!isEnvelope(m.json)) continue;
      expect(byEventId.has(m.json.eventId), `event id ${m.json.eventId} stored twice`).toBe(false);
      byEventId.set(m.json.eventId, m);
    }

    const checked = new Map<string, number>();
    let answeringRequests = 0;
    for (const m of messages) {
      const e = m.json;
      // what the registry could not read as an event is no event: its refusal is checked below
      if (!isEnvelope(e) || parseCallSubject(m.subject) === undefined) continue;
      checked.set(e.type, (checked.get(e.type) ?? 0) + 1);
      const where = `${e.type} ${e.eventId} (seq ${m.seq})`;
      if (e.type === "ToolCallRequested") {
        expect(e.causeHash, where).toBeNull();
        expect(e.causationId, where).toBeNull();
        continue;
      }
      expect(e.causeHash, where).toMatch(/^sha256:[0-9a-f]{64}$/);
      if (e.causationId === null) {
        // the registry's refusal of bytes it could not read as JSON: it answers those bytes
        const request = messages.find((r) => r.subject === callEventSubject("kb", e.callId, "ToolCallRequested", "support-bot"));
        expect(request, where).toBeDefined();
        expect(e.causeHash, where).toBe(`sha256:${sha256Hex(request!.data)}`);
        expect(e.causeHash, where).toBe(messageHash(request!.data));
        continue;
      }
      const cause = byEventId.get(e.causationId);
      expect(cause, `${where}: its cause ${e.causationId} is stored`).toBeDefined();
      expect((cause!.json as StoredEnvelope).callId, where).toBe(e.callId);
      expect(e.causeHash, `${where} names the hash of ${(cause!.json as StoredEnvelope).type} ${e.causationId}`).toBe(eventHash(JSON.parse(new TextDecoder().decode(cause!.data))));
      expect(e.causeHash, where).toBe(messageHash(cause!.data));
      // what an auditor in another language does: any RFC 8785 (JCS) library and sha256
      expect(e.causeHash, `${where}: JCS of the stored bytes`).toBe(`sha256:${sha256Hex(canonicalize(JSON.parse(new TextDecoder().decode(cause!.data))) ?? "")}`);
      if ((cause!.json as StoredEnvelope).type === "ToolCallRequested") answeringRequests++;
    }

    // every path above was taken, so every kind of answer was checked: a new event type is
    // either taken by a path here or named as one this test does not take
    const notTaken: EventType[] = ["ToolCallOutcomeUnknown", "ToolCallLateResult", "ToolCallCancelled", "SessionGrantRevoked", "ToolResultValidated"];
    const expected = EVENT_TYPES.filter((type) => !notTaken.includes(type));
    for (const type of expected) expect(checked.get(type) ?? 0, type).toBeGreaterThan(0);
    expect(answeringRequests).toBeGreaterThan(0);
    // the request with a stray member is answered by the hash of what is stored, member and all
    const strayRejection = messages.map((m) => m.json).find((j): j is StoredEnvelope => isEnvelope(j) && j.callId === strayId && j.type === "ToolCallRejected");
    expect(strayRejection?.causeHash).toBe(eventHash(stray));
  });
});
