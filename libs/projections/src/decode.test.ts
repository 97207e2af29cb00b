import { describe, expect, it } from "vitest";
import { MAX_EVENT_BYTES, MAX_JSON_DEPTH, MAX_REQUEST_BYTES, MAX_REQUEST_DEPTH, subjectOfEvent } from "@warden/contracts/subjects";
import { decodeCallMessage } from "./decode.js";
import { syntheticCall } from "@warden/testing";

const enc = (v: unknown) => new TextEncoder().encode(typeof v === "string" ? v : JSON.stringify(v));

/** The request's JSON text with its args replaced by arrays nested `depth` levels (JSON.stringify could not build it). */
function withDeepArgs(event: object, depth: number): Uint8Array {
  const text = JSON.stringify({ ...event, data: { ...(event as { data: object }).data, args: "@" } });
  return enc(text.replace('"@"', `${"[".repeat(depth)}${"]".repeat(depth)}`));
}

describe("decodeCallMessage", () => {
  const [requested, validated] = syntheticCall({ callId: "c1", outcome: "succeeded" });
  const subject = subjectOfEvent(requested!);

  it("returns the event its subject names", () => {
    expect(decodeCallMessage(subjectOfEvent(validated!), enc(validated))).toEqual({ ok: true, event: validated });
  });

  it("refuses malformed JSON, invalid events and events under another subject, with a code and a reason", () => {
    expect(decodeCallMessage(subject, enc("{nope"))).toMatchObject({ ok: false, code: "MALFORMED_JSON", reason: expect.stringMatching(/malformed JSON/) });
    expect(decodeCallMessage(subject, enc({ ...requested, v: 2 }))).toMatchObject({ ok: false, code: "SCHEMA_INVALID", reason: expect.stringMatching(/schema-invalid/) });
    expect(decodeCallMessage(subject, enc(validated))).toMatchObject({ ok: false, code: "SUBJECT_MISMATCH", reason: expect.stringMatching(/does not match/) });
    expect(decodeCallMessage("warden.other", enc(validated))).toMatchObject({ ok: false, code: "NOT_A_CALL_SUBJECT", retryable: false });
  });

  it("refuses args nested 50,000 levels deep as a value instead of overflowing the stack", () => {
    expect(decodeCallMessage(subject, withDeepArgs(requested!, 50_000))).toMatchObject({ ok: false, code: "TOO_DEEP", retryable: false });
    // deep objects too (20,000 levels stay under the request size limit), and brackets inside strings do not count
    const objects = JSON.stringify(requested).replace(/"args":\{[^}]*\}/, `"args":${'{"a":'.repeat(20_000)}1${"}".repeat(20_000)}`);
    expect(decodeCallMessage(subject, enc(objects))).toMatchObject({ ok: false, code: "TOO_DEEP" });
  });

  it("accepts args as deep as the limit allows and refuses one level more, the same every time", () => {
    // the event is level 1, data level 2: args may open the limit - 2 more levels
    const validatedSubject = subjectOfEvent(validated!);
    expect(decodeCallMessage(validatedSubject, withDeepArgs(validated!, MAX_JSON_DEPTH - 2))).toMatchObject({ ok: true });
    expect(decodeCallMessage(validatedSubject, withDeepArgs(validated!, MAX_JSON_DEPTH - 1))).toMatchObject({ ok: false, code: "TOO_DEEP" });
    const bracketsInText = { ...requested!, data: { ...requested!.data, args: { text: `\\"${"[".repeat(10_000)}` } } };
    expect(decodeCallMessage(subject, enc(bracketsInText))).toMatchObject({ ok: true });
  });

  it("holds a request to the registry's limits, so a request the registry refused as unreadable is unreadable here too", () => {
    expect(decodeCallMessage(subject, withDeepArgs(requested!, MAX_REQUEST_DEPTH - 2))).toMatchObject({ ok: true });
    expect(decodeCallMessage(subject, withDeepArgs(requested!, MAX_REQUEST_DEPTH - 1))).toMatchObject({ ok: false, code: "TOO_DEEP" });
    const big = enc({ ...requested!, data: { ...requested!.data, args: { text: "x".repeat(MAX_REQUEST_BYTES) } } });
    expect(decodeCallMessage(subject, big)).toMatchObject({ ok: false, code: "TOO_LARGE" });
  });

  it("refuses bytes that are not UTF-8 instead of replacing them", () => {
    const good = enc({ ...requested!, data: { ...requested!.data, args: { text: "é" } } });
    const at = good.indexOf(0xc3);
    const bad = new Uint8Array(good);
    bad[at] = 0xff;
    expect(decodeCallMessage(subject, good)).toMatchObject({ ok: true });
    expect(decodeCallMessage(subject, bad)).toMatchObject({ ok: false, code: "NOT_UTF8" });
  });

  it("refuses a message larger than any event Warden writes before reading it", () => {
    const validatedSubject = subjectOfEvent(validated!);
    const big = enc({ ...validated!, data: { ...validated!.data, args: { text: "x".repeat(MAX_EVENT_BYTES) } } });
    expect(decodeCallMessage(validatedSubject, big)).toMatchObject({ ok: false, code: "TOO_LARGE" });
    const justUnder = enc({ ...validated!, data: { ...validated!.data, args: { text: "x".repeat(MAX_EVENT_BYTES - 2_000) } } });
    expect(decodeCallMessage(validatedSubject, justUnder)).toMatchObject({ ok: true });
  });
});
