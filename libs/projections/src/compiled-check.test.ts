import { describe, expect, it } from "vitest";
import { compiledEventCheck, validateEventJson, validateEventJsonWithZod, type WardenEvent } from "@warden/contracts/events";
import { MAX_REQUEST_DEPTH, subjectOfEvent } from "@warden/contracts/subjects";
import { SYNTHETIC_OUTCOMES, syntheticCall } from "@warden/testing";
import { acceptedAsIs, fullDecodeCallMessage, decodeCallMessage } from "./decode.js";

const enc = (text: string) => new TextEncoder().encode(text);

/** Events of every type, with the optional members the synthetic calls leave out. */
function corpus(): WardenEvent[] {
  const events = SYNTHETIC_OUTCOMES.flatMap((outcome, i) =>
    syntheticCall({ callId: `c${i}`, outcome, ...(i % 2 === 0 ? { parentCallId: "p1" } : {}), args: { q: "é🙂", n: [1, -2.5, null, true], o: { deep: { x: {} } } } }),
  );
  const finished = events.find((e) => e.type === "ToolCallFinished")!;
  const checked = events.find((e) => e.type === "ToolPolicyChecked")!;
  const rejected = events.find((e) => e.type === "ToolCallRejected")!;
  const requested = events.find((e) => e.type === "ToolCallRequested")!;
  const approval = events.find((e) => e.type === "ApprovalRequested")!;
  const grant = events.find((e) => e.type === "ApprovalGranted")!;
  const started = events.find((e) => e.type === "ToolCallStarted")!;
  const envelope = { ...finished, causationId: finished.eventId };
  const intent = { goal: "close the refund ticket", rationale: "it was paid today", expectedEffect: "one ticket closed" };
  return [
    ...events,
    // the members issue 13 added: a request's intent (a strict object), the whole approval card, an edited quorum grant, a cancel
    { ...requested, data: { ...(requested as Extract<WardenEvent, { type: "ToolCallRequested" }>).data, intent } },
    {
      ...approval,
      data: {
        ...(approval as Extract<WardenEvent, { type: "ApprovalRequested" }>).data,
        description: "Closes a ticket",
        flags: { destructive: false, openWorld: false, idempotent: true },
        intent,
        chain: [{ callId: "p1", principal: "alice", mode: "human", tool: "agent.triage" }],
        onBehalfOf: "alice via agent.triage",
        riskReasons: ["a write"],
        deciders: ["alice", "bob"],
        quorum: 2,
        noLiveExecutor: true,
      },
    },
    {
      ...grant,
      data: {
        ...(grant as Extract<WardenEvent, { type: "ApprovalGranted" }>).data,
        edit: { args: { q: "edited" }, originalArgsHash: "sha256:" + "c".repeat(64) },
        coApprovers: [{ approver: "bob", at: "2030-01-01T00:00:00.000Z" }],
      },
    },
    { ...started, type: "ToolCallCancelled", data: { by: "alice", as: "requester", reason: "not needed", approvalId: "a1" } },
    // session grants: the terms a grant makes, the origin a session-given grant names, and a revoke
    {
      ...grant,
      data: {
        ...(grant as Extract<WardenEvent, { type: "ApprovalGranted" }>).data,
        session: { expiresAt: "2030-01-01T01:00:00.000Z", args: { q: { equals: null }, n: { oneOf: [1, "x"], min: 0, max: 5.5 }, p: { prefix: "/srv" } } },
      },
    },
    { ...grant, data: { ...(grant as Extract<WardenEvent, { type: "ApprovalGranted" }>).data, bySession: { grantId: "c0", approvalId: "a0" } } },
    { ...grant, type: "SessionGrantRevoked", data: { approvalId: "a0", by: "olga", as: "operator", reason: "done" } },
    { ...envelope, type: "ToolCallLateResult", data: { ...(finished as Extract<WardenEvent, { type: "ToolCallFinished" }>).data, outcomeEventId: "o1", outcomeType: "ToolCallOutcomeUnknown" } },
    {
      ...envelope,
      type: "ToolViewCompiled",
      eventId: "v1",
      data: { turn: 3, viewPrincipal: "sub1", viewMode: "llm", policyVersion: "p1", tools: [{ name: "kb.search", wireName: "kb__search", version: "1.0.0", grade: "read" }], hidden: [{ name: "x.y", reason: "grade", detail: "" }] },
    },
    {
      ...checked,
      data: {
        ...(checked as Extract<WardenEvent, { type: "ToolPolicyChecked" }>).data,
        decision: "deny",
        retryAfterMs: 0,
        shadow: { decision: "allow", ruleIds: ["r1"], reason: "would allow", shadowRuleIds: ["s1"] },
        reservations: [{ ledger: "l1", holder: "bot", period: "2030-01-01", calls: 1, cost: 0 }],
        exceeded: { ledger: "l1", holder: "bot", period: "2030-01-01", left: { calls: 0 }, limit: { cost: 5 }, needed: { calls: 1, cost: 2 }, resetsAt: "2030-01-02T00:00:00.000Z" },
      },
    },
    { ...rejected, data: { stage: "executor", error: { code: "HANDLER_ERROR", message: "m", retryable: true, details: { a: [1, { b: null }] } } } },
    // tracing: the W3C trace context an event carries (a request from a traced agent, a stage's answer)
    { ...requested, traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" },
    { ...checked, traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-b7ad6b7169203331-00" },
  ] as WardenEvent[];
}

/** Every path to a member or element of a JSON value. */
function paths(v: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (v === null || typeof v !== "object") return [at];
  const inner = Array.isArray(v) ? v.flatMap((x, i) => paths(x, [...at, i])) : Object.entries(v).flatMap(([k, x]) => paths(x, [...at, k]));
  return [at, ...inner];
}

function withAt(root: unknown, path: (string | number)[], change: (parent: Record<string | number, unknown>, key: string | number) => void): unknown {
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let parent = copy;
  for (const k of path.slice(0, -1)) parent = parent[k] as Record<string | number, unknown>;
  change(parent, path.at(-1)!);
  return copy;
}

const REPLACEMENTS: unknown[] = [null, "", "x", "00-" + "0".repeat(32) + "-" + "b".repeat(16) + "-01", "00-" + "A".repeat(32) + "-" + "b".repeat(16) + "-01", "01-" + "a".repeat(32) + "-" + "b".repeat(16) + "-01", "sha256:" + "a".repeat(64), "2030-01-01T00:00:00.000Z", 0, -1, 1.5, 2 ** 60, true, false, [], {}, ["x"], { a: 1 }, "🙂".repeat(100), "a".repeat(201)];

describe("acceptedAsIs (the compiled event check)", () => {
  it("compiles the event schema: nothing in it falls back to zod for every event", () => {
    expect(compiledEventCheck()).not.toBeNull();
  });

  it("accepts every valid event, returning what the full decode returns", () => {
    for (const e of corpus()) {
      const bytes = enc(JSON.stringify(e));
      const full = fullDecodeCallMessage(subjectOfEvent(e), bytes);
      expect(full).toMatchObject({ ok: true });
      expect(acceptedAsIs(subjectOfEvent(e), bytes)).toEqual(full.ok ? full.event : undefined);
    }
  });

  it("never accepts what the full decode refuses, over every member removed, replaced or added", () => {
    let refused = 0;
    let tried = 0;
    const check = (subject: string, text: string) => {
      tried++;
      const bytes = enc(text);
      const full = fullDecodeCallMessage(subject, bytes);
      const fast = acceptedAsIs(subject, bytes);
      if (!full.ok) refused++;
      if (fast !== undefined) expect(full.ok ? full.event : "refused").toEqual(fast);
      expect(decodeCallMessage(subject, bytes)).toEqual(full);
      // the stages' validateEventJson (the compiled check first) answers exactly as zod alone
      const json: unknown = JSON.parse(text);
      expect(validateEventJson(json)).toEqual(validateEventJsonWithZod(json));
    };
    // one event of each shape (every type, and the variants with more members)
    const shapes = new Map(corpus().map((e) => [`${e.type}:${paths(e).length}`, e]));
    for (const e of shapes.values()) {
      const subject = subjectOfEvent(e);
      for (const path of paths(e).slice(1)) {
        check(subject, JSON.stringify(withAt(e, path, (p, k) => (Array.isArray(p) ? p.splice(Number(k), 1) : delete p[k]))));
        for (const r of REPLACEMENTS) check(subject, JSON.stringify(withAt(e, path, (p, k) => (p[k] = r))));
        check(subject, JSON.stringify(withAt(e, path, (p, k) => (p[k] = { ...(p[k] as object), stray: 1 }))));
      }
      check(subject, JSON.stringify({ ...e, stray: 1 }));
    }
    // the mutations mostly break the event: the test compares refusals, not only acceptances
    expect(refused).toBeGreaterThan(tried / 2);
  });

  it("leaves to the full decode what only it reads the same way: BOM, bad UTF-8, __proto__, numbers out of range, lengths in code points, depth", () => {
    const [requested] = syntheticCall({ callId: "c1", outcome: "succeeded" });
    const subject = subjectOfEvent(requested!);
    const text = JSON.stringify(requested);
    const cases: Uint8Array[] = [
      enc(`\uFEFF${text}`),
      new Uint8Array([...enc(text.slice(0, -1)), 0xff, 0x7d]),
      enc(text.replace('"args":{', '"args":{"__proto__":{"x":1},')),
      enc(text.replace('"flags":{}', '"flags":{"__proto__":true}')),
      enc(text.replace('"args":{', '"args":{"big":1e400,')),
      enc(text.replace(/"tool":"[^"]*"/, `"tool":"${"🙂".repeat(100)}"`)),
      enc(text.replace(/"tool":"[^"]*"/, `"tool":"${"🙂".repeat(101)}"`)),
      enc(text.replace(/"tool":"[^"]*"/, '"tool":"\\ud800"')),
      enc(text.replace('"args":{', `"args":{"d":${"[".repeat(MAX_REQUEST_DEPTH - 3)}${"]".repeat(MAX_REQUEST_DEPTH - 3)},`)),
      enc(text.replace('"args":{', `"args":{"d":${"[".repeat(MAX_REQUEST_DEPTH - 2)}${"]".repeat(MAX_REQUEST_DEPTH - 2)},`)),
      enc(text.replace('"args":{', `"args":{"d":${"[".repeat(100_000)}${"]".repeat(100_000)},`)),
    ];
    for (const bytes of cases) {
      const full = fullDecodeCallMessage(subject, bytes);
      const fast = acceptedAsIs(subject, bytes);
      if (fast !== undefined) expect(full.ok ? full.event : "refused").toEqual(fast);
      expect(decodeCallMessage(subject, bytes)).toEqual(full);
    }
    // the boundaries themselves: 100 emoji are 100 code points (a tool name may have 200), the event, data and args take 3 of the request's 64 levels
    expect(decodeCallMessage(subject, cases[5]!)).toMatchObject({ ok: true });
    expect(decodeCallMessage(subject, cases[8]!)).toMatchObject({ ok: true });
    expect(decodeCallMessage(subject, cases[9]!)).toMatchObject({ ok: false, code: "TOO_DEEP" });
  });
});
