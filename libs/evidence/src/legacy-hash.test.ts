import { describe, expect, it } from "vitest";
import { messageHash, type WardenEvent } from "@warden/contracts/events";
import { chainFindings, type StoredEvent } from "./call-chains.js";
import { legacyMessageHash } from "./legacy-hash.js";

const bytes = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));

/** A request whose args have index-like keys, and an answer naming it by `causeHash`. */
function chain(causeHash: (request: Uint8Array) => string): StoredEvent[] {
  const request = { type: "ToolCallRequested", callId: "c1", eventId: "e1", causationId: null, causeHash: null, data: { args: { "10": "x", "9": "y", a: 1 } } };
  const data = bytes(request);
  const answer = { type: "ToolArgsValidated", callId: "c1", eventId: "e2", causationId: "e1", causeHash: causeHash(data) };
  const legacyHash = legacyMessageHash(data);
  return [
    { seq: 1, subject: "warden.call.kb.c1.ToolCallRequested", event: request as unknown as WardenEvent, hash: messageHash(data), ...(legacyHash === undefined ? {} : { legacyHash }) },
    { seq: 2, subject: "warden.call.kb.c1.ToolArgsValidated", event: answer as unknown as WardenEvent, hash: messageHash(bytes(answer)) },
  ];
}

describe("causes hashed before canonical JSON became RFC 8785", () => {
  it("differ only where JSON has index-like keys, and are computed only there", () => {
    const withIndexKeys = bytes({ b: { "10": 1, "9": 2 } });
    expect(legacyMessageHash(withIndexKeys)).toMatch(/^sha256:/);
    expect(legacyMessageHash(withIndexKeys)).not.toBe(messageHash(withIndexKeys));
    expect(legacyMessageHash(bytes({ b: { x: 1, "01": 2 } }))).toBeUndefined();
  });

  it("link an event written back then to its cause; a hash of neither form is still a mismatch", () => {
    expect(chainFindings(chain(messageHash), [], true)).toEqual([]);
    expect(chainFindings(chain((d) => legacyMessageHash(d)!), [], true)).toEqual([]);
    const changed = chainFindings(chain(() => `sha256:${"0".repeat(64)}`), [], true);
    expect(changed.map((f) => f.kind)).toEqual(["chain_hash_mismatch"]);
  });
});
