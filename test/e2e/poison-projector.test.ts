import { describe, expect, it } from "vitest";
import { kvGetJson, type Bus } from "@warden/bus";
import { newId } from "@warden/contracts/events";
import { BUCKET_APPROVALS, BUCKET_CALLS, callEventSubject, STREAM_CALLS, STREAM_DLQ } from "@warden/contracts/subjects";
import { ApprovalInboxRecordSchema } from "@warden/contracts/read-models";
import { CallModelSchema } from "@warden/projections";
import { openCursor } from "@warden/projector";
import { createAgentClient } from "@warden/sdk";
import { eventually } from "@warden/testing";
import type { PolicyDocumentInput } from "@warden/contracts/policy";
import { runWarden } from "../support/cli.js";
import { usualPrincipals } from "../support/usual-principals.js";
import { useTestWarden } from "../support/use-test-warden.js";

const DEPTH = 50_000;

const POLICY: PolicyDocumentInput = {
  version: "e2e-poison",
  principals: { ...usualPrincipals("support-bot", "planner"), alice: { kind: "human", approves: ["send"] } },
};


/** A well-formed request whose args are arrays nested `depth` levels deep (built as text: JSON.stringify would overflow). */
function deepRequest(callId: string, principal: string, depth: number): Uint8Array {
  const envelope = {
    v: 1,
    eventId: newId(),
    callId,
    domain: "kb",
    tool: "kb.search",
    principal,
    mode: "llm",
    ts: new Date().toISOString(),
    causationId: null,
    correlationId: newId(),
    type: "ToolCallRequested",
  };
  const text = `${JSON.stringify(envelope).slice(0, -1)},"data":{"scope":null,"flags":{},"args":${"[".repeat(depth)}${"]".repeat(depth)}}}`;
  return new TextEncoder().encode(text);
}

/** The stages that dead-lettered one message of the call stream, one entry per letter. */
async function lettersFor(bus: Bus, streamSeq: number): Promise<string[]> {
  const info = await bus.jsm.streams.info(STREAM_DLQ);
  const stages: string[] = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && seq > 0; seq++) {
    const m = await bus.jsm.streams.getMessage(STREAM_DLQ, { seq }).catch(() => null);
    if (m?.header?.get("Warden-Dlq-Seq") === String(streamSeq)) stages.push(m.header.get("Warden-Dlq-Stage"));
  }
  return stages;
}

describe("a request nested 50,000 levels deep does not stop the projector", () => {
  const t = useTestWarden({ demo: true, policy: POLICY }, async (w) => {
    const botBus = await w.agentBus("support-bot");
    return { botBus, bot: createAgentClient({ bus: botBus, principal: "support-bot" }), planner: await w.agent("planner") };
  });

  it("skips it once, dead-letters it once, keeps projecting later calls, and audit, replay and trace still agree", async () => {
    const before = await t.bot.call("kb.search", { query: "before" }, { mode: "llm", wait: true });
    expect(before.ok).toBe(true);

    // the agent sends it through its own request subject, as any caller could
    const deepId = newId();
    const ack = await t.botBus.js.publish(callEventSubject("kb", deepId, "ToolCallRequested", "support-bot"), deepRequest(deepId, "support-bot", DEPTH), {
      expect: { lastSubjectSequence: 0 },
    });

    const after = await t.bot.call("kb.search", { query: "after" }, { mode: "llm", wait: true });
    expect(after.ok).toBe(true);
    const asked = await t.planner.call("customer.message", { customerId: "C-1", text: "hello" }, { mode: "plan" });
    expect(asked.status).toBe("awaiting_approval");

    // the read models move past it: the later call and the later approval are projected
    const calls = await t.w.bus.kvm.open(BUCKET_CALLS);
    await eventually(async () => expect((await kvGetJson(calls, after.callId, CallModelSchema))?.value.status).toBe("succeeded"), 15_000);
    await eventually(async () => expect(await kvGetJson(await t.w.bus.kvm.open(BUCKET_APPROVALS), asked.approvalId!, ApprovalInboxRecordSchema)).toBeDefined(), 15_000);
    const last = (await t.w.bus.jsm.streams.info(STREAM_CALLS)).state.last_seq;
    const cursor = await openCursor(t.w.bus);
    await eventually(async () => expect(await cursor.read()).toBeGreaterThanOrEqual(last), 15_000);
    // the registry answers the caller from the subject; the read model ends the call there, without a violation
    await eventually(async () =>
      expect((await kvGetJson(calls, deepId, CallModelSchema))?.value).toMatchObject({ status: "rejected", rejection: { stage: "registry" }, violations: [] }),
    );

    // recorded once, not once per retry (a stage that met it first may hold the one letter)
    expect(await lettersFor(t.w.bus, ack.seq)).toHaveLength(1);

    const audit = await runWarden(t.w.nats.home.dir, "audit", "--verify", "--json");
    expect(audit.err).not.toMatch(/call stack/i);
    expect(audit.code).toBe(0);
    expect(JSON.parse(audit.out)).toMatchObject({ verified: true, invalidEvents: { first: [{ seq: ack.seq, reason: expect.stringMatching(/^TOO_DEEP: /) }] } });

    const replay = await runWarden(t.w.nats.home.dir, "replay", "--json");
    expect(replay.err).not.toMatch(/call stack/i);
    expect(replay.code).toBe(0);
    const doc = JSON.parse(replay.out) as { matches?: boolean; toSeq: number; invalid: number };
    expect(doc.matches).toBe(true);
    expect(doc.toSeq).toBeGreaterThanOrEqual(last);
    expect(doc.invalid).toBeGreaterThanOrEqual(1);

    const trace = await runWarden(t.w.nats.home.dir, "trace", deepId);
    expect(trace.code).toBe(0);
    expect(trace.out).toContain(`UNREADABLE seq ${ack.seq} `);
    expect(trace.out).toMatch(/ToolCallRejected +registry/);
  });
});
