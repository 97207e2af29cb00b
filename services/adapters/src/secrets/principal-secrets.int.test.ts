import { createHash, randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { callEvents } from "@warden/testing";
import { createAgentClient, createRegistryClient, type AgentClient } from "@warden/sdk";
import type { PolicyDocumentInput } from "@warden/contracts/policy";
import { canaryLeaks } from "../../test/canary.js";
import { FIXTURES, NODE, rawCallsStream, useAdaptersWarden, tempDir, writeManifest } from "../../test/harness.js";
import { readToolEntry } from "../../test/manifest-entries.js";
import { useLocalHttp } from "../../test/local-http.js";

const TOKENS = { alice: `alice-${randomBytes(12).toString("hex")}`, bob: `bob-${randomBytes(12).toString("hex")}` };
const sha = (s: string) => createHash("sha256").update(s).digest("hex");
// symbols that URL, JSON and base64 treat differently, as in the canary suite
const CANARY = `canary-${randomBytes(12).toString("base64url")}/+=`;
const { ENCODINGS } = (await import(join(FIXTURES, "canary-encodings.mjs"))) as { readonly ENCODINGS: readonly string[] };

const POLICY: PolicyDocumentInput = {
  version: "principal-secrets-test",
  principals: { alice: { kind: "human" }, bob: { kind: "human" }, carol: { kind: "human" } },
  rules: [],
  budgets: {},
};

describe("adapters: secrets bound to the calling principal", () => {
  const w = useAdaptersWarden(POLICY);
  const seen: string[] = [];
  const people: Record<"alice" | "bob" | "carol", AgentClient> = {} as never;

  const http = useLocalHttp((req, res) => {
    const auth = req.headers.authorization ?? "";
    seen.push(auth);
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ youSent: auth }));
  });

  beforeAll(async () => {
    const dir = tempDir("principal-secrets");
    const secretsFile = join(dir, "secrets.yaml");
    writeFileSync(secretsFile, `crm_token:\n  alice: ${TOKENS.alice}\n  bob: ${TOKENS.bob}\ncanary:\n  alice: ${JSON.stringify(CANARY)}\n`);
    const manifest = await writeManifest(dir, "crm.yaml", {
      domain: "crm",
      secrets: [
        { name: "crm_token", file: "crm_token", bind: "principal" },
        { name: "canary", file: "canary", bind: "principal" },
      ],
      tools: [
        readToolEntry("whoami", "Use to see which CRM account the API sees for the caller.", {
          http: { url: `${http.base}/me`, allowHosts: ["127.0.0.1"] },
          secrets: [{ secret: "crm_token", header: "Authorization", prefix: "Bearer " }],
        }),
        readToolEntry("hash", "Use to see a hash of the CRM token the command got, and the token itself.", {
          cli: {
            command: NODE,
            argv: [join(FIXTURES, "hash-env.mjs"), "CRM_TOKEN"],
            roots: ["."],
            output: "json",
          },
          secrets: [{ secret: "crm_token", env: "CRM_TOKEN" }],
        }),
        readToolEntry("canary", "Use to echo alice's canary credential in an encoding, for the redaction tests.", {
          inputSchema: { type: "object", properties: { encoding: { type: "string", enum: [...ENCODINGS] }, where: { type: "string", enum: ["result", "error"] } }, required: ["encoding", "where"] },
          cli: { command: NODE, argv: [join(FIXTURES, "canary-echo.mjs"), "{encoding}", "{where}"], roots: ["."] },
          secrets: [{ secret: "canary", env: "CANARY" }],
        }),
      ],
    });
    await w.startAdapters([manifest], { env: {}, secretsFile });
    for (const name of ["alice", "bob", "carol"] as const) {
      people[name] = createAgentClient({ bus: await w.humanBus(name), principal: name, mode: "human", timeoutMs: 15_000 });
    }
  });
  it("sends alice's token on alice's call and bob's on bob's, redacted from the results", async () => {
    const alice = await people.alice.call("crm.whoami", {});
    expect(alice).toMatchObject({ ok: true, data: { body: { youSent: "Bearer [REDACTED:crm_token]" } } });
    const bob = await people.bob.call("crm.whoami", {});
    expect(bob).toMatchObject({ ok: true, data: { body: { youSent: "Bearer [REDACTED:crm_token]" } } });
    expect(seen).toEqual([`Bearer ${TOKENS.alice}`, `Bearer ${TOKENS.bob}`]);
  });

  it("gives a CLI tool's process the caller's own token in its environment, redacted from its output", async () => {
    const alice = await people.alice.call("crm.hash", {});
    expect(alice).toMatchObject({ ok: true, data: { stdout: { sha: sha(TOKENS.alice), token: "[REDACTED:crm_token]" } } });
    const bob = await people.bob.call("crm.hash", {});
    expect(bob).toMatchObject({ ok: true, data: { stdout: { sha: sha(TOKENS.bob), token: "[REDACTED:crm_token]" } } });
  });

  it("fails carol's call CREDENTIAL_UNAVAILABLE before anything is sent, naming the secret and carol", async () => {
    const before = seen.length;
    const carol = await people.carol.call("crm.whoami", {});
    expect(carol).toMatchObject({
      ok: false,
      error: { code: "CREDENTIAL_UNAVAILABLE", retryable: false, message: "carol has no credential for secret crm_token: it is bound to the principal the call runs for, and no other credential is used instead" },
    });
    expect(seen).toHaveLength(before);
    expect(await people.carol.call("crm.hash", {})).toMatchObject({ ok: false, error: { code: "CREDENTIAL_UNAVAILABLE" } });
  });

  it("records on the result which credential was used and whose, by name only", async () => {
    const r = await people.alice.call("crm.whoami", {});
    const finished = (await callEvents(w.bus, r.callId)).find((e) => e.type === "ToolCallFinished");
    expect(finished?.type === "ToolCallFinished" && finished.data.credentials).toEqual([{ secret: "crm_token", bind: "principal", principal: "alice" }]);
  });

  it("registers the tools as acting for the caller, and tells the model so in its view", async () => {
    const listed = await createRegistryClient(w.bus).list();
    expect(listed.ok && listed.value.find((t) => t.descriptor.name === "crm.whoami")?.descriptor).toMatchObject({ actsAs: "caller", secrets: ["crm_token"] });
    const view = await people.alice.toolView({ format: "openai" });
    expect(view.ok && view.value.view.tools.find((t) => t.name === "crm.whoami")).toMatchObject({ actsAs: "caller", description: expect.stringContaining("with their own credentials") });
  });

  it.each(ENCODINGS)("redacts a principal-bound credential echoed as %s in a result or an error, as the canary suite does an executor's", async (encoding) => {
    for (const where of ["result", "error"]) {
      const r = await people.alice.call("crm.canary", { encoding, where });
      const places = [JSON.stringify(r), JSON.stringify(await callEvents(w.bus, r.callId)), w.logs()];
      expect(places[0], `${encoding} ${where} shows a redaction`).toContain("[REDACTED:canary]");
      for (const text of places) expect(canaryLeaks(text, CANARY), `${encoding} ${where}`).toEqual([]);
    }
  });

  it("leaves no principal's token in WARDEN_CALLS or the logs", async () => {
    const calls = await rawCallsStream(w.bus);
    const logs = w.logs();
    expect(calls).toContain("[REDACTED:crm_token]");
    for (const token of Object.values(TOKENS)) {
      expect(calls.includes(token), "WARDEN_CALLS holds a token").toBe(false);
      expect(logs.includes(token), "the logs hold a token").toBe(false);
    }
  });
});
