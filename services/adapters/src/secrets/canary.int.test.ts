import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createAgentClient, type AgentClient, type ToolResult } from "@warden/sdk";
import { callEvents } from "@warden/testing";
import { canaryLeaks } from "../../test/canary.js";
import { FIXTURES, NODE, rawArtifacts, useAdaptersWarden, tempDir, TEST_POLICY, writeManifest } from "../../test/harness.js";
import { useLocalHttp } from "../../test/local-http.js";

interface CanaryEncodings {
  readonly ENCODINGS: readonly string[];
  encodeCanary(secret: string, encoding: string): string;
  writeInChunks(write: (text: string) => void, text: string): Promise<void>;
}

// the same module encodes for the CLI fixture and for the HTTP server below
const { ENCODINGS, encodeCanary, writeInChunks } = (await import(join(FIXTURES, "canary-encodings.mjs"))) as CanaryEncodings;
const WHERE = ["result", "error", "artifact", "chunks"] as const;
const SHIFTS = ["0", "1", "2"] as const;
// symbols that URL, JSON and base64 treat differently, and random bytes nobody else prints
const CANARY = `canary-${randomBytes(12).toString("base64url")}/+=`;
const MARK = "[REDACTED:canary]";

describe("canary: a secret echoed in any covered encoding is redacted everywhere Warden records it", () => {
  const w = useAdaptersWarden(TEST_POLICY);
  let agent: AgentClient;

  const http = useLocalHttp((req, res) => {
    void (async () => {
      const [, kind, encoding, where] = (req.url ?? "").split("/");
      const secret = (req.headers["x-canary"] as string | undefined) ?? "";
      const text = encodeCanary(secret, encoding ?? "");
      if (kind === "octet") {
        // binary around the encoded secret, shifted by 0, 1 or 2 bytes: the adapter base64-encodes the body itself
        res.writeHead(200, { "content-type": "application/octet-stream" });
        return void res.end(Buffer.concat([Buffer.alloc(Number(where), 0xff), Buffer.from(text), Buffer.from([0, 1, 2, 254])]));
      }
      if (where === "error") return void res.writeHead(500, { "content-type": "text/plain" }).end(`failed: ${text}`);
      res.writeHead(200, { "content-type": "text/plain" });
      if (where === "artifact") return void res.end(`${text}\n${"x".repeat(12_000)}\n${text}\n`);
      if (where === "chunks") await writeInChunks((s) => res.write(s), text);
      else res.write(text);
      res.end();
    })();
  });

  beforeAll(async () => {
    const dir = tempDir("canary");
    const args = {
      type: "object",
      properties: { encoding: { type: "string", enum: [...ENCODINGS] }, where: { type: "string", enum: [...WHERE, ...SHIFTS] } },
      required: ["encoding", "where"],
    };
    const tool = (name: string, extra: Record<string, unknown>) => ({
      name,
      version: "1.0.0",
      title: name,
      description: "Use to echo the canary secret in an encoding, for the redaction tests.",
      grade: "read",
      inputSchema: args,
      ...extra,
    });
    const manifest = await writeManifest(dir, "canary.yaml", {
      domain: "canary",
      secrets: [{ name: "canary", env: "CANARY_SECRET" }],
      tools: [
        tool("cli", {
          cli: { command: NODE, argv: [join(FIXTURES, "canary-echo.mjs"), "{encoding}", "{where}"], roots: ["."], maxStdoutBytes: 20_000 },
          secrets: [{ secret: "canary", env: "CANARY" }],
        }),
        tool("http", {
          http: { url: `${http.base}/text/{encoding}/{where}`, allowHosts: ["127.0.0.1"], response: "auto" },
          secrets: [{ secret: "canary", header: "X-Canary" }],
        }),
        tool("octet", {
          http: { url: `${http.base}/octet/{encoding}/{where}`, allowHosts: ["127.0.0.1"], response: "auto" },
          secrets: [{ secret: "canary", header: "X-Canary" }],
        }),
      ],
    });
    await w.startAdapters([manifest], { env: { CANARY_SECRET: CANARY } });
    agent = createAgentClient({ bus: await w.agentBus("agent"), principal: "agent", mode: "plan", timeoutMs: 15_000 });
  });
  /** Every place the call left a trace: its result and error as the caller got them, every event of the call, the artifacts, the logs. */
  async function traces(r: ToolResult): Promise<[string, string][]> {
    const events = await callEvents(w.bus, r.callId);
    const artifacts = await rawArtifacts(w.bus);
    const places: [string, string][] = [
      ["result", JSON.stringify(r.ok ? r.data : null)],
      ["error", JSON.stringify(r.ok ? null : r.error)],
      ["stream", JSON.stringify(events)],
      ["artifacts", artifacts.text],
      ["logs", w.logs()],
    ];
    // an octet-stream body is recorded as base64: what it hides must be clean once decoded
    return [...places, ...places.map(([place, text]): [string, string] => [`${place} (decoded body)`, decodedBodies(text)])];
  }

  async function expectClean(tool: string, encoding: string, where: string): Promise<void> {
    const r = await agent.call(`canary.${tool}`, { encoding, where });
    const all = await traces(r);
    // the tool must really have echoed something redacted, or a clean scan would prove nothing
    expect(all.some(([, text]) => text.includes(MARK)), `${tool} ${encoding} ${where} shows a redaction`).toBe(true);
    if (where === "error") expect(r.ok, `${tool} ${encoding} ${where} failed`).toBe(false);
    if (where === "artifact") expect(r.ok && r.truncated, `${tool} ${encoding} ${where} made an artifact`).toBe(true);
    for (const [place, text] of all) expect(canaryLeaks(text, CANARY), `${tool} ${encoding} ${where}: ${place}`).toEqual([]);
  }

  it.each(ENCODINGS)("a CLI tool echoing the canary as %s in its result, error, artifact and chunks leaks it nowhere", async (encoding) => {
    for (const where of WHERE) await expectClean("cli", encoding, where);
  });

  it.each(ENCODINGS)("an HTTP tool echoing the canary as %s in its body, error, artifact and chunks leaks it nowhere", async (encoding) => {
    for (const where of WHERE) await expectClean("http", encoding, where);
  });

  it.each(ENCODINGS)("an application/octet-stream body holding the canary as %s is redacted before the adapter base64-encodes it", async (encoding) => {
    for (const shift of SHIFTS) await expectClean("octet", encoding, shift);
  });
});

/** The base64 bodies of octet-stream results, decoded: their redaction marks are inside the bytes. */
function decodedBodies(text: string): string {
  return [...text.matchAll(/"base64":"([A-Za-z0-9+/=]*)"/g)].map((m) => Buffer.from(m[1]!, "base64").toString("latin1")).join("\n");
}
