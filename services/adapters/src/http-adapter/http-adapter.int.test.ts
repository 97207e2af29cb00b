import type { IncomingMessage } from "node:http";
import { beforeAll, describe, expect, it } from "vitest";
import { readEvent } from "@warden/bus";
import { readArtifactJson, startExecutor } from "@warden/executor";
import { createAgentClient, createApproverClient, type AgentClient, type ApproverClient } from "@warden/sdk";
import { useAdaptersWarden, tempDir, TEST_POLICY, writeManifest } from "../../test/harness.js";
import { cardWithPreview } from "../../test/approval-card.js";
import { useLocalHttp } from "../../test/local-http.js";
import { ManifestError } from "../manifest/load-manifests.js";
import { ToolEntrySchema } from "../manifest/manifest-schema.js";
import { httpTool } from "./http-tool.js";

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly body: string;
}

const obj = (properties: Record<string, unknown>, required: string[] = []) => ({ type: "object", properties, required });

describe("HTTP adapter: requests from args, to allowed hosts only", () => {
  // a model's create waits for alice, so its card shows the dry run
  const w = useAdaptersWarden({ ...TEST_POLICY, llm: { showWrite: ["httptest.create"] } });
  let agent: AgentClient;
  let alice: ApproverClient;
  const seen: Seen[] = [];

  const http = useLocalHttp(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    seen.push({ method: req.method ?? "", url: req.url ?? "", body });
    const url = new URL(req.url ?? "/", "http://x");
    const status = /^\/status\/(\d+)$/.exec(url.pathname);
    if (status) return void res.writeHead(Number(status[1]), { "content-type": "text/plain" }).end(`status ${status[1]} body`);
    if (url.pathname === "/slow") return; // never answers
    if (url.pathname === "/big") return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ items: Array.from({ length: 3_000 }, (_, i) => ({ i, text: "item text" })) }));
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ method: req.method, path: url.pathname, query: Object.fromEntries(url.searchParams), body: body ? JSON.parse(body) : null }));
  });

  beforeAll(async () => {
    const loaded = await writeManifest(tempDir("http"), "httptest.yaml", {
      domain: "httptest",
      tools: [
        {
          name: "item",
          version: "1.0.0",
          title: "Get an item",
          description: "Use to read one item by its id.",
          grade: "read",
          inputSchema: obj({ id: { type: "string" }, q: { type: "string" } }, ["id"]),
          http: { url: `${http.base}/items/{id}`, query: { q: "{q}" }, allowHosts: ["127.0.0.1"] },
        },
        {
          name: "profile",
          version: "1.0.0",
          title: "Get a user's profile",
          description: "Use to read the profile of one user by id.",
          grade: "read",
          inputSchema: obj({ id: { type: "string" } }, ["id"]),
          http: { url: `${http.base}/v1/users/{id}/profile`, allowHosts: ["127.0.0.1"] },
        },
        {
          name: "item-at",
          version: "1.0.0",
          title: "Get an item from a host",
          description: "Use to read item 1 from a given host.",
          grade: "read",
          inputSchema: obj({ host: { type: "string" } }, ["host"]),
          http: { url: "http://{host}/items/1", allowHosts: ["127.0.0.1"] },
        },
        {
          name: "create",
          version: "1.0.0",
          title: "Create an item",
          description: "Use to create an item; it can be edited or deleted later.",
          grade: "write",
          inputSchema: obj({ name: { type: "string" }, size: { type: "integer" } }, ["name"]),
          http: { method: "POST", url: `${http.base}/items`, body: { name: "{name}", size: "{size}", label: "item {name}" }, allowHosts: ["127.0.0.1"] },
          preview: { url: `${http.base}/items/would-create`, query: { name: "{name}" } },
        },
        {
          name: "status",
          version: "1.0.0",
          title: "Answer with a status",
          description: "Use to get a chosen HTTP status back.",
          grade: "read",
          inputSchema: obj({ code: { type: "integer" } }, ["code"]),
          http: { url: `${http.base}/status/{code}`, allowHosts: ["127.0.0.1"] },
        },
        { name: "big", version: "1.0.0", title: "Big", description: "Use to fetch a large list of items.", grade: "read", inputSchema: obj({}), http: { url: `${http.base}/big`, allowHosts: ["127.0.0.1"] } },
        {
          name: "slow",
          version: "1.0.0",
          title: "Slow",
          description: "Use to call an endpoint that never answers.",
          grade: "read",
          timeoutMs: 800,
          inputSchema: obj({}),
          http: { url: `${http.base}/slow`, allowHosts: ["127.0.0.1"] },
        },
      ],
    });
    // the adapters run as their domain's executor identity, the agent as itself
    await w.startAdapters([loaded], { env: {} });
    agent = createAgentClient({ bus: await w.agentBus("agent"), principal: "agent", mode: "plan", timeoutMs: 15_000 });
    alice = createApproverClient({ bus: await w.humanBus("alice"), approver: "alice" });
  });
  it("fills the URL, query and JSON body from the args and returns the status and parsed body", async () => {
    const read = await agent.call("httptest.item", { id: "a b?c", q: "x&y/z" });
    expect(read).toMatchObject({ ok: true, data: { status: 200, body: { method: "GET", path: "/items/a%20b%3Fc", query: { q: "x&y/z" } } } });
    const created = await agent.call("httptest.create", { name: "box", size: 3 });
    expect(created).toMatchObject({ ok: true, data: { status: 200, body: { method: "POST", body: { name: "box", size: 3, label: "item box" } } } });
  });

  it("records each request it sends as an external effect, METHOD origin/path without the query string", async () => {
    const read = await agent.call("httptest.item", { id: "i-7", q: "token-in-query" });
    expect(read).toMatchObject({ ok: true });
    const finished = await readEvent(w.bus, "httptest", read.callId, "ToolCallFinished");
    expect(finished?.data.effectsObserved).toEqual({ reads: [], writes: [], external: [`GET ${http.base}/items/i-7`] });
  });

  it("refuses a path arg .. that would climb out of the URL template, before sending anything, and still sends an ordinary id", async () => {
    const before = seen.length;
    for (const id of ["..", ".", "../admin"]) {
      const r = await agent.call("httptest.profile", { id });
      expect(r, id).toMatchObject({ ok: false, status: "rejected", error: { code: "INVALID_ARGS" } });
      expect(await readEvent(w.bus, "httptest", r.callId, "ToolCallStarted")).toBeUndefined();
    }
    expect(seen.length).toBe(before);
    expect(await agent.call("httptest.profile", { id: "u-42" })).toMatchObject({ ok: true, data: { status: 200, body: { path: "/v1/users/u-42/profile" } } });
  });

  it("refuses a host that is not on the tool's allow-list before sending anything", async () => {
    const before = seen.length;
    const port = new URL(http.base).port;
    const r = await agent.call("httptest.item-at", { host: `localhost:${port}` });
    expect(r).toMatchObject({ ok: false, status: "rejected", error: { code: "INVALID_ARGS", message: expect.stringMatching(/not on the tool's allow-list/) } });
    expect(await readEvent(w.bus, "httptest", r.callId, "ToolCallStarted")).toBeUndefined();
    expect(seen.length).toBe(before);
    expect(await agent.call("httptest.item-at", { host: `127.0.0.1:${port}` })).toMatchObject({ ok: true });
  });

  it("refuses an unsafe method for a read tool when the manifest is loaded, naming the line", async () => {
    const dir = tempDir("http-bad");
    const manifest = {
      domain: "httpbad",
      tools: [{ name: "wipe", version: "1.0.0", title: "Wipe", description: "Use to read things, it claims.", grade: "read", inputSchema: obj({}), http: { method: "DELETE", url: `${http.base}/x`, allowHosts: ["127.0.0.1"] } }],
    };
    await expect(writeManifest(dir, "bad.yaml", manifest)).rejects.toThrow(ManifestError);
    await expect(writeManifest(dir, "bad.yaml", manifest)).rejects.toThrow(/bad\.yaml:\d+:\d+: tools\[0\]\.http\.method: method DELETE is not allowed for a read tool/);
  });

  it("shows a write tool's dry run, a GET to its host, on the approval card, and sends nothing else", async () => {
    const before = seen.length;
    const asked = await agent.call("httptest.create", { name: "crate" }, { mode: "llm" });
    expect(asked).toMatchObject({ status: "awaiting_approval" });
    const card = await cardWithPreview(alice, asked.callId);
    expect(card.preview).toMatchObject({ data: { method: "GET", path: "/items/would-create", query: { name: "crate" } } });
    expect(seen.slice(before).map((r) => r.method)).toEqual(["GET"]);
    expect(await alice.deny(card.approvalId, card.argsHash, "not now")).toMatchObject({ ok: true });
  });

  it("refuses a dry run that is not GET or HEAD when the manifest is loaded, naming the line", async () => {
    const manifest = {
      domain: "httpbad",
      tools: [
        {
          name: "remove",
          version: "1.0.0",
          title: "Remove",
          description: "Use to remove an item; its dry run should only look.",
          grade: "write",
          inputSchema: obj({}),
          http: { method: "DELETE", url: `${http.base}/x`, allowHosts: ["127.0.0.1"] },
          preview: { method: "POST", url: `${http.base}/x/dry-run` },
        },
      ],
    };
    await expect(writeManifest(tempDir("http-bad-preview"), "bad.yaml", manifest)).rejects.toThrow(/bad\.yaml:\d+:\d+: tools\[0\]\.preview\.method: a dry run only reads: its method is GET or HEAD, not POST/);
  });

  it("refuses an unsafe method for a read tool at run time too, when a tool was built without the manifest check", async () => {
    const entry = ToolEntrySchema.parse({
      name: "wipe",
      version: "1.0.0",
      title: "Wipe",
      description: "Use to read things, it claims.",
      grade: "read",
      inputSchema: obj({}),
      http: { method: "DELETE", url: `${http.base}/x`, allowHosts: ["127.0.0.1"] },
    });
    const executor = w.track(
      await startExecutor({
        bus: await w.executorBus(["httpraw"]),
        log: w.log,
        domain: "httpraw",
        tools: [httpTool("httpraw", { ...entry, http: entry.http! }, { secretSources: [] })],
        approverKeys: w.approverKeys,
      }),
    );
    expect(executor.registered[0]).toMatchObject({ name: "httpraw.wipe" });
    const before = seen.length;
    const r = await agent.call("httpraw.wipe", {});
    expect(r).toMatchObject({ ok: false, status: "rejected", error: { code: "INVALID_ARGS", message: expect.stringMatching(/DELETE is not allowed for a read tool/) } });
    expect(seen.length).toBe(before);
  });

  it("turns an error status into an error result that says whether retrying may help", async () => {
    expect(await agent.call("httptest.status", { code: 404 })).toMatchObject({
      ok: false,
      error: { code: "HANDLER_ERROR", retryable: false, details: { status: 404, body: "status 404 body" } },
    });
    expect(await agent.call("httptest.status", { code: 503 })).toMatchObject({ ok: false, error: { retryable: true, details: { status: 503 } } });
    expect(await agent.call("httptest.status", { code: 302 })).toMatchObject({ ok: false, error: { message: expect.stringMatching(/redirects are not followed/) } });
  });

  it("stores a large body as an artifact with a valid preview", async () => {
    const r = await agent.call("httptest.big", {});
    expect(r).toMatchObject({ ok: true, truncated: true, data: { status: 200 } });
    const full = await readArtifactJson(w.bus, r.artifacts![0]!.id);
    expect(full.ok && (full.value as { body: { items: unknown[] } }).body.items).toHaveLength(3_000);
  });

  it("gives up on a server that does not answer within the tool's timeout", async () => {
    expect(await agent.call("httptest.slow", {})).toMatchObject({ ok: false, error: { code: "TIMEOUT" } });
  });
});
