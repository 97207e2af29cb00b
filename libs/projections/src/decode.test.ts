import { describe, expect, it } from "vitest";
import { subjectOfEvent } from "@warden/contracts";
import { decodeCallMessage } from "./decode.js";
import { syntheticCall } from "./synthetic-calls.js";

const enc = (v: unknown) => new TextEncoder().encode(typeof v === "string" ? v : JSON.stringify(v));

describe("decodeCallMessage", () => {
  const [requested, validated] = syntheticCall({ callId: "c1", outcome: "succeeded" });

  it("returns the event its subject names", () => {
    expect(decodeCallMessage(subjectOfEvent(validated!), enc(validated))).toEqual({ ok: true, event: validated });
  });

  it("refuses malformed JSON, invalid events and events under another subject, with a reason", () => {
    expect(decodeCallMessage(subjectOfEvent(requested!), enc("{nope"))).toMatchObject({ ok: false, reason: expect.stringMatching(/malformed JSON/) });
    expect(decodeCallMessage(subjectOfEvent(requested!), enc({ ...requested, v: 2 }))).toMatchObject({ ok: false, reason: expect.stringMatching(/schema-invalid/) });
    expect(decodeCallMessage(subjectOfEvent(requested!), enc(validated))).toMatchObject({ ok: false, reason: expect.stringMatching(/does not match/) });
    expect(decodeCallMessage("warden.other", enc(validated))).toMatchObject({ ok: false });
  });
});
