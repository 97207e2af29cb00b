import { describe, expect, it } from "vitest";
import { requestedEvent } from "../test-support/requested-event.js";
import { sha256Hex } from "./canonical-json.js";
import { eventHash, messageHash, validateEventJson } from "./event-hash.js";

const request = requestedEvent({ eventId: "ev-1", callId: "call-1", mode: "plan", data: { args: { q: "x", n: [1, 2] }, scope: null, flags: { beta: true } } });

const bytes = (text: string) => new TextEncoder().encode(text);
const reversed = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(reversed)
    : value !== null && typeof value === "object"
      ? Object.fromEntries(Object.entries(value).reverse().map(([k, v]) => [k, reversed(v)]))
      : value;

describe("eventHash", () => {
  it("is sha256 of the canonical JSON, whatever the key order", () => {
    expect(eventHash(request)).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(JSON.stringify(reversed(request))).not.toBe(JSON.stringify(request));
    expect(eventHash(reversed(request))).toBe(eventHash(request));
  });

  it("changes with any field, however deep", () => {
    const h = eventHash(request);
    expect(eventHash({ ...request, principal: "bob" })).not.toBe(h);
    expect(eventHash({ ...request, ts: new Date(1).toISOString() })).not.toBe(h);
    expect(eventHash({ ...request, data: { ...request.data, args: { q: "x", n: [2, 1] } } })).not.toBe(h);
    expect(eventHash({ ...request, data: { ...request.data, flags: { beta: false } } })).not.toBe(h);
    expect(eventHash({ ...request, extra: 1 })).not.toBe(h);
  });

  it("of an event held in memory equals the hash of the bytes it is written as", () => {
    // undefined members are not written, a Date is written as its ISO string, a __proto__ key is a member
    const held = { ...request, parentCallId: undefined, data: { ...request.data, args: { at: new Date(0), q: undefined } } };
    const written = JSON.parse(JSON.stringify(held)) as unknown;
    expect(eventHash(held)).toBe(eventHash(written));
    const withProto = JSON.parse('{"a":1,"__proto__":{"b":2}}') as unknown;
    expect(eventHash(withProto)).not.toBe(eventHash({ a: 1 }));
    expect(eventHash(withProto)).toBe(eventHash(JSON.parse(JSON.stringify(withProto))));
  });
});

describe("messageHash", () => {
  it("is the eventHash of a message's JSON, however it is spaced or ordered", () => {
    expect(messageHash(bytes(JSON.stringify(request)))).toBe(eventHash(request));
    expect(messageHash(bytes(JSON.stringify(reversed(request), null, 2)))).toBe(eventHash(request));
  });

  it("is the hash of the bytes themselves when they are not JSON canonical JSON can write", () => {
    for (const text of ["{not json", '{"n": 1e999}']) {
      expect(messageHash(bytes(text))).toBe(`sha256:${sha256Hex(bytes(text))}`);
    }
    const notUtf8 = new Uint8Array([0x7b, 0xff, 0x7d]);
    expect(messageHash(notUtf8)).toBe(`sha256:${sha256Hex(notUtf8)}`);
  });
});

describe("validateEventJson", () => {
  it("reads a whole event as it is", () => {
    const r = validateEventJson(JSON.parse(JSON.stringify(request)));
    expect(r).toEqual({ ok: true, value: request });
  });

  it("refuses members the schema does not know, wherever they are, since no hash of the decoded event would cover them", () => {
    const cases: [unknown, string][] = [
      [{ ...request, note: "x" }, "note"],
      [{ ...request, data: { ...request.data, priority: 1 } }, "data.priority"],
      [JSON.parse(JSON.stringify(request).replace('"args":{', '"args":{"__proto__":{"x":1},')), "data.args.__proto__"],
      [JSON.parse(JSON.stringify(request).replace('"flags":{', '"size":1e999,"flags":{')), "data.size"],
    ];
    for (const [json, path] of cases) {
      const r = validateEventJson(json);
      expect(r.ok, path).toBe(false);
      if (!r.ok) {
        expect(r.code).toBe("SCHEMA_INVALID");
        expect(r.reason).toContain(`${path} is not part of a ToolCallRequested`);
      }
    }
  });

  it("leaves schema errors as zod reports them", () => {
    expect(validateEventJson({ ...request, causeHash: "sha256:nope" })).toMatchObject({ ok: false, code: "SCHEMA_INVALID" });
    expect(validateEventJson({ ...request, causeHash: undefined })).toMatchObject({ ok: false, code: "SCHEMA_INVALID" });
  });
});
