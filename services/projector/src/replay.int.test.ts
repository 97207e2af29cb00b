import { describe, expect, it } from "vitest";
import { appendEvent, silentLogger } from "@warden/bus";
import { type WardenEvent } from "@warden/contracts/events";
import { callEventSubject, subjectOfEvent } from "@warden/contracts/subjects";
import { decodeFailureText, emptyModelMaps, foldEvent, fullDecodeCallMessage } from "@warden/projections";
import { CRAFTED_VIOLATIONS, eventually, SYNTHETIC_OUTCOMES, syntheticCall, useTestNats } from "@warden/testing";
import { openCursor } from "./cursor.js";
import { digestsOf, readLiveModels } from "./live-models.js";
import { replayStream } from "./replay.js";
import { startProjectorService } from "./service.js";
import { readStream } from "./stream-reader.js";

const enc = (t: string) => new TextEncoder().encode(t);

/**
 * Every kind of call: each outcome (allow, policy deny, approval granted, denied, expired, an
 * unknown tool, a crash, a re-run), subagent children (llm and not), a late result, views
 * compiled, and every crafted violation.
 */
function variedCalls(): WardenEvent[] {
  const out: WardenEvent[] = [];
  SYNTHETIC_OUTCOMES.forEach((outcome, i) => {
    out.push(...syntheticCall({ callId: `v-${i}`, outcome, runId: `run${i % 3}`, principal: `p${i % 2}`, tool: i % 2 === 0 ? "kb.search" : "kb__search" }));
    out.push(...syntheticCall({ callId: `v-${i}-child`, outcome, parentCallId: `v-${i}`, mode: i % 2 === 0 ? "llm" : "plan", args: { deep: { list: [1, "é🙂", null] } } }));
  });
  const finished = out.find((e) => e.type === "ToolCallFinished")!;
  out.push({
    ...finished,
    type: "ToolCallLateResult",
    eventId: `${finished.callId}-late`,
    data: { ...(finished as Extract<WardenEvent, { type: "ToolCallFinished" }>).data, outcomeEventId: finished.eventId, outcomeType: "ToolCallFinished" },
  } as WardenEvent);
  for (const turn of [1, 2]) {
    out.push({
      ...finished,
      type: "ToolViewCompiled",
      eventId: `${finished.callId}-view${turn}`,
      data: { turn, viewPrincipal: "sub1", viewMode: "llm", policyVersion: "p1", tools: [{ name: "kb.search", wireName: "kb__search", version: "1.0.0", grade: "read" }], hidden: [] },
    } as WardenEvent);
  }
  Object.values(CRAFTED_VIOLATIONS).forEach((craft, i) => out.push(...craft(`x-${i}`, `xrun${i}`)));
  return out;
}

/** Messages on call subjects that are not valid events, each of a different kind, and one valid only to the full decode. */
function malformed(): [string, Uint8Array][] {
  const [request, validated] = syntheticCall({ callId: "m-1", outcome: "succeeded" });
  const text = JSON.stringify(request);
  return [
    [callEventSubject("kb", "m-json", "ToolArgsValidated"), enc("not json")],
    [callEventSubject("kb", "m-schema", "ToolArgsValidated"), enc(JSON.stringify({ ...validated, callId: "m-schema", v: 9 }))],
    [callEventSubject("kb", "m-stray", "ToolArgsValidated"), enc(JSON.stringify({ ...validated, callId: "m-stray", extra: true }))],
    [callEventSubject("kb", "m-mismatch", "ToolArgsValidated"), enc(JSON.stringify(validated))],
    [callEventSubject("kb", "m-deep", "ToolCallRequested", "bot"), enc(text.replace('{"query":"q-m-1"}', `${"[".repeat(100)}${"]".repeat(100)}`).replaceAll("m-1", "m-deep"))],
    [callEventSubject("kb", "m-bom", "ToolCallRequested", "bot"), enc(`\uFEFF${text.replaceAll("m-1", "m-bom")}`)],
    [callEventSubject("kb", "m-proto", "ToolCallRequested", "bot"), enc(text.replace('"flags":{}', '"flags":{"__proto__":true}').replaceAll("m-1", "m-proto"))],
    [callEventSubject("kb", "m-bytes", "ToolCallRequested", "bot"), new Uint8Array([...enc(text.replaceAll("m-1", "m-bytes").slice(0, -1)), 0xff, 0x7d])],
  ];
}

describe("replay", () => {
  const server = useTestNats();

  it("folds a varied stream into the same models as the full zod decode and as the live projector, leaving out the same messages", async () => {
    const events = variedCalls();
    const bad = malformed();
    // the malformed messages go between the calls' events, as they would arrive
    for (let i = 0; i < events.length; i++) {
      // a crafted second outcome finds its slot taken: the server keeps the first
      const r = await appendEvent(server.bus, events[i]!);
      expect(["written", "already_written"], subjectOfEvent(events[i]!)).toContain(r.status);
      if (i % 20 === 0 && bad.length > 0) {
        const [subject, data] = bad.shift()!;
        await server.bus.js.publish(subject, data);
      }
    }
    for (const [subject, data] of bad) await server.bus.js.publish(subject, data);

    // the reference: every message through the full decode (zod), folded one by one
    const reference = emptyModelMaps();
    const refused: string[] = [];
    await readStream(server.bus, {}, (m) => {
      const d = fullDecodeCallMessage(m.subject, m.data);
      if (d.ok) foldEvent(reference, m.seq, d.event);
      else refused.push(`${m.seq} ${decodeFailureText(d)}`);
    });
    // a request behind a byte-order mark is read (the UTF-8 decoder drops the mark): only the full decode takes it
    expect(refused, refused.join("\n")).toHaveLength(malformed().length - 1);
    expect(reference.calls.has("m-bom")).toBe(true);

    const replay = await replayStream(server.bus);
    expect(replay.maps).toEqual(reference);
    expect(digestsOf(replay.maps)).toEqual(digestsOf(reference));
    expect(replay.invalid).toBe(refused.length);
    expect(replay.invalidSamples.map((s) => `${s.seq} ${s.reason}`)).toEqual(refused);
    // the models hold what the calls were made of: children, violations, every approval and budget
    expect(replay.maps.calls.size).toBeGreaterThan(2 * SYNTHETIC_OUTCOMES.length);
    expect([...replay.maps.calls.values()].some((m) => (m as { children?: string[] }).children?.length)).toBe(true);
    expect(replay.maps.approvals.size).toBeGreaterThan(0);

    // the live projector, with its compare-and-set writes, ends where the replay does
    const projector = await startProjectorService({ bus: await server.nats.connectAs({ kind: "service", name: "projector", role: "projector" }), log: silentLogger(), leaseTtlMs: 500 });
    try {
      const cursor = await openCursor(server.bus);
      await eventually(async () => expect(await cursor.read()).toBe(replay.toSeq), 20_000);
      const live = await readLiveModels(server.bus);
      expect(live.cursor).toBe(replay.toSeq);
      expect(digestsOf(live.maps)).toEqual(digestsOf(replay.maps));
    } finally {
      await projector.stop();
    }
  });
});
