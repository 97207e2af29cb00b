import { beforeAll, describe, expect, it } from "vitest";
import { pino } from "pino";
import { kvPutJson, type Bus } from "@warden/bus";
import { BUCKET_POLICY } from "@warden/contracts/subjects";
import { POLICY_DOCUMENT_KEY, PolicyDocumentSchema } from "@warden/contracts/policy";
import { eventually, useTestNats } from "@warden/testing";
import { followPolicyDocument } from "./policy-document-follower.js";

describe("the policy document follower", () => {
  /** Its admin connection (`server.bus`) writes the stored document behind every service's back. */
  const server = useTestNats();
  /** What a service that follows the document holds (the registry's identity). */
  let registry: Bus;
  beforeAll(async () => {
    registry = await server.nats.connectAs({ kind: "service", name: "registry", role: "registry" });
  });

  it("keeps the last valid document when an invalid one is stored, reports it, and falls back to the defaults when it is deleted", async () => {
    const kv = await server.bus.kvm.open(BUCKET_POLICY);
    const lines: Record<string, unknown>[] = [];
    const log = pino({ level: "info" }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });
    const follower = await followPolicyDocument(registry, log);
    try {
      expect(follower.current().version).toBe("builtin-0");
      const valid = await kvPutJson(kv, POLICY_DOCUMENT_KEY, PolicyDocumentSchema.parse({ version: "valid-1" }));
      await eventually(() => expect(follower.revision()).toBe(valid));
      expect(follower.current().version).toBe("valid-1");

      const broken = await kvPutJson(kv, POLICY_DOCUMENT_KEY, { version: "broken", rules: "not a list" });
      await eventually(() => expect(follower.invalid()?.revision).toBe(broken));
      expect(follower.invalid()).toMatchObject({ code: "SCHEMA_INVALID", reason: expect.stringContaining("rules") });
      expect(follower.current().version).toBe("valid-1");
      expect(follower.revision()).toBe(valid);
      expect(lines).toContainEqual(expect.objectContaining({ level: 50, msg: "invalid policy document ignored", revision: broken, issue: expect.stringContaining("rules") }));

      const garbled = await kv.put(POLICY_DOCUMENT_KEY, new TextEncoder().encode("{not json"));
      await eventually(() => expect(follower.invalid()).toMatchObject({ revision: garbled, code: "MALFORMED_JSON" }));
      expect(follower.current().version).toBe("valid-1");

      await kv.delete(POLICY_DOCUMENT_KEY);
      await eventually(() => expect(follower.current().version).toBe("builtin-0"));
      expect(follower.invalid()).toBeUndefined();
    } finally {
      follower.stop();
    }
  });

  it("starts with the built-in defaults, and reports the stored document, when the stored one is already invalid", async () => {
    const kv = await server.bus.kvm.open(BUCKET_POLICY);
    const broken = await kvPutJson(kv, POLICY_DOCUMENT_KEY, { version: "" });
    const follower = await followPolicyDocument(registry, pino({ level: "silent" }));
    try {
      expect(follower.current().version).toBe("builtin-0");
      expect(follower.invalid()).toMatchObject({ revision: broken, code: "SCHEMA_INVALID" });
    } finally {
      follower.stop();
      await kv.delete(POLICY_DOCUMENT_KEY);
    }
  });
});
