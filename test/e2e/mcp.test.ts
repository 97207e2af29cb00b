import { spawn, type ChildProcess } from "node:child_process";
import { dirname, resolve } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { CallToolResultSchema, ElicitRequestSchema, ToolListChangedNotificationSchema, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { readEvent } from "@warden/bus";
import { PolicyDocumentSchema } from "@warden/contracts/policy";
import { defineTool } from "@warden/executor";
import { putPolicyDocument } from "@warden/policy";
import { createWardenMcpSession, startMcpHttpServer, WARDEN_META_KEY, type WardenMcpSession } from "@warden/mcp-server";
import { createRegistryClient } from "@warden/sdk";
import { eventually } from "@warden/testing";
import { startMcpHttp } from "../support/mcp-http.js";
import { deskAlice } from "../support/usual-principals.js";
import { startTestWarden, type TestWarden } from "../support/warden.js";

const MAIN = resolve(dirname(fileURLToPath(import.meta.url)), "../../cli/dist/main.js");

/** The demo's policy, plus a person who confirms their own sends (alice, mode human) and a model-visible write. */
const POLICY = PolicyDocumentSchema.parse({
  version: "mcp-e2e-1",
  principals: {
    alice: deskAlice(),
    dana: { kind: "human", flags: { kbAdmin: true } },
    "support-bot": { kind: "agent" },
  },
  llm: { showWrite: ["ticket.fill"] },
});

/** A domain of this test's own: a tool with an output schema (structured content) and a slow one (progress). */
const lookup = defineTool({
  name: "mcpt.lookup",
  version: "1.0.0",
  title: "Look up an order",
  description: "Use when the customer quotes an order id and asks where the order is.",
  grade: "read",
  idempotent: true,
  input: z.strictObject({ orderId: z.string() }),
  outputSchema: { type: "object", properties: { orderId: { type: "string" }, status: { type: "string" } }, required: ["orderId", "status"] },
  handler: ({ orderId }) => ({ orderId, status: "shipped" }),
});
const slow = defineTool({
  name: "mcpt.slow",
  version: "1.0.0",
  title: "A slow lookup",
  description: "Use when you want to see progress reported while a call runs for a while.",
  grade: "read",
  idempotent: true,
  timeoutMs: 5_000,
  input: z.strictObject({}),
  handler: async (_args, ctx) => {
    await delay(900, undefined, { signal: ctx.signal });
    return { done: true };
  },
});

/** The parent's environment less anything that would pick another Warden or identity. */
function cleanEnv(): Record<string, string> {
  const { NATS_URL: _url, NATS_CREDS: _creds, WARDEN_HOME: _home, WARDEN_PRINCIPAL: _p, ...rest } = process.env;
  return Object.fromEntries(Object.entries(rest).filter((e): e is [string, string] => e[1] !== undefined));
}

function textOf(r: CallToolResult): string {
  return r.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
}

function metaOf(r: CallToolResult): Record<string, unknown> {
  return (r._meta?.[WARDEN_META_KEY] ?? {}) as Record<string, unknown>;
}

async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

const names = (tools: readonly Pick<Tool, "name">[]) => tools.map((t) => t.name).sort();

describe("warden mcp, driven by the official MCP SDK client against a real Warden", { timeout: 120_000 }, () => {
  let w: TestWarden;
  let env: Record<string, string>;
  const clients: Client[] = [];
  const processes: ChildProcess[] = [];

  /** `warden mcp ARGS` over stdio, as an MCP client configures it. */
  async function stdioClient(args: string[], capabilities: ConstructorParameters<typeof Client>[1] = {}): Promise<Client> {
    const client = new Client({ name: "e2e", version: "1.0.0" }, capabilities);
    const transport = new StdioClientTransport({ command: process.execPath, args: [MAIN, "mcp", ...args], env, stderr: "inherit" });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  beforeAll(async () => {
    w = await startTestWarden({ demo: true, policy: POLICY });
    for (const name of ["alice", "dana"]) await w.nats.home.addIdentity({ kind: "human", name });
    await w.nats.home.addIdentity({ kind: "agent", name: "support-bot" });
    await w.startExecutor("mcpt", [lookup, slow], { identity: "mcpt" });
    env = { ...cleanEnv(), WARDEN_HOME: w.nats.home.dir, LOG_LEVEL: "warn" };
  }, 60_000);

  afterAll(async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    for (const p of processes) p.kill("SIGTERM");
    await w.stop();
  });

  describe("over stdio, as support-bot in llm mode", () => {
    let client: Client;
    /** The same session with a short bound: a call that waits for a person answers PENDING after it. */
    let bounded: Client;
    let listChanged = 0;

    beforeAll(async () => {
      // reads and refusals end on their own: the bound is far above a loaded machine's time for
      // them (2 s was not, once, in CI)
      const args = ["--as", "support-bot", "--scope", "ticket_page"];
      [client, bounded] = await Promise.all([stdioClient([...args, "--timeout", "30s"]), stdioClient([...args, "--timeout", "3s"])]);
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (listChanged += 1));
    }, 30_000);

    it("lists exactly support-bot's llm ToolView: wire names, schemas and hints, no send and no hidden tool", async () => {
      const { tools } = await client.listTools();
      const agent = await w.agent("support-bot", { mode: "llm" });
      const view = await agent.toolView({ format: "mcp", scope: "ticket_page" });
      expect(view.ok).toBe(true);
      if (!view.ok) return;
      expect(names(tools)).toEqual(view.value.view.tools.map((t) => t.wireName).sort());
      expect(names(tools)).toContain("ticket__fill");
      expect(names(tools)).not.toContain("customer__message");
      expect(names(tools)).not.toContain("kb__reindex");
      const search = tools.find((t) => t.name === "kb__search")!;
      expect(search.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
      expect(search.inputSchema).toMatchObject({ type: "object", required: ["query"] });
      expect(tools.find((t) => t.name === "ticket__fill")?.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: true });
      expect(tools.find((t) => t.name === "mcpt__lookup")?.outputSchema).toMatchObject({ type: "object", required: ["orderId", "status"] });
      await agent.close();
    });

    it("runs a read as a governed call and returns its output", async () => {
      const r = await callTool(client, "kb__search", { query: "refund" });
      expect(r.isError).toBe(false);
      expect(textOf(r)).toMatch(/articles/);
      expect(metaOf(r)).toMatchObject({ status: "succeeded", callId: expect.any(String) });
    });

    it("returns a tool's output as structured content when it has an output schema", async () => {
      const r = await callTool(client, "mcpt__lookup", { orderId: "O-7" });
      expect(r).toMatchObject({ isError: false, structuredContent: { orderId: "O-7", status: "shipped" } });
    });

    it("answers a model's write with a pending result naming its approval id: nothing ran", async () => {
      const r = await callTool(bounded, "ticket__fill", { ticketId: "T-1", fields: { priority: "high" } });
      expect(r.isError).toBe(true);
      expect(textOf(r)).toMatch(/^PENDING: this call needs a person's approval \(approvalId \S+\)/);
      expect(metaOf(r)).toMatchObject({ status: "awaiting_approval", approvalId: expect.any(String), code: "CONFIRMATION_REQUIRED", handle: `warden://calls/${String(metaOf(r)["callId"])}` });
    });

    it("answers a send the view never lists, asked for by name, with a pending result: it waits for a person, never for the model", async () => {
      const send = await callTool(bounded, "customer__message", { customerId: "C-mcp-llm", text: "hi" });
      expect(send.isError).toBe(true);
      expect(textOf(send)).toMatch(/^PENDING: this call needs a person's approval \(approvalId \S+\); it has not run yet\. Only a person can confirm it/);
      expect(metaOf(send)).toMatchObject({ status: "awaiting_approval", approvalId: expect.any(String), code: "CONFIRMATION_REQUIRED" });
      const checked = await readEvent(w.bus, "customer", String(metaOf(send)["callId"]), "ToolPolicyChecked");
      expect(checked?.data).toMatchObject({ decision: "require_approval", ruleIds: ["default.send.llm"] });
    });

    it("refuses a tool the view does not show, and invalid args, as error results", async () => {
      const hidden = await callTool(client, "kb__reindex", {});
      expect(hidden.isError).toBe(true);
      expect(metaOf(hidden)).toMatchObject({ status: "rejected", code: "POLICY_DENIED" });
      const invalid = await callTool(client, "kb__search", { query: 42 });
      expect(invalid.isError).toBe(true);
      expect(metaOf(invalid)).toMatchObject({ status: "rejected", code: "INVALID_ARGS" });
    });

    it("sends list_changed when a tool of the view is disabled, and again when it is enabled", async () => {
      const admin = createRegistryClient(w.bus);
      const before = listChanged;
      expect((await admin.setStatus({ name: "session.fetch", status: "disabled" })).ok).toBe(true);
      await eventually(() => expect(listChanged).toBeGreaterThan(before), 10_000);
      expect(names((await client.listTools()).tools)).not.toContain("session__fetch");
      const disabled = listChanged;
      expect((await admin.setStatus({ name: "session.fetch", status: "enabled" })).ok).toBe(true);
      await eventually(() => expect(listChanged).toBeGreaterThan(disabled), 10_000);
      expect(names((await client.listTools()).tools)).toContain("session__fetch");
    });

    it("sends list_changed when a new policy version comes into force", async () => {
      const before = listChanged;
      const put = await putPolicyDocument(w.bus, { ...POLICY, version: "mcp-e2e-2" });
      expect(put.ok).toBe(true);
      await eventually(() => expect(listChanged).toBeGreaterThan(before), 10_000);
    });
  });

  it("over streamable HTTP, in plan mode: a send waits for a person and the result names the approval", async () => {
    // a token of one's own choosing is used as it is, and never printed
    const chosen = "e2e-chosen-token-0123456789abcdef";
    const http = await startMcpHttp(w.nats.home.dir, ["--as", "support-bot", "--mode", "plan", "--timeout", "3s"], { LOG_LEVEL: "warn", WARDEN_MCP_TOKEN: chosen });
    processes.push(http.child);
    // the token line follows the URL line the start waited for, maybe in a later chunk
    await eventually(() => expect(http.output()).toContain("WARDEN_MCP_TOKEN"), 5_000);
    expect(http.output()).not.toContain(chosen);
    const url = http.url;
    const authorization = `Bearer ${chosen}`;
    const client = new Client({ name: "e2e-http", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization } } }));
    clients.push(client);
    const listed = names((await client.listTools()).tools);
    expect(listed).toContain("customer__message");
    const r = await callTool(client, "customer__message", { customerId: "C-9", text: "Your refund is on its way." });
    expect(r.isError).toBe(true);
    expect(metaOf(r)).toMatchObject({ status: "awaiting_approval", approvalId: expect.any(String) });
    expect(textOf(r)).toContain(String(metaOf(r)["approvalId"]));
    // a client that skips initialize, or names a session that does not exist, is refused
    const stray = await fetch(url, { method: "POST", headers: { authorization, "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) });
    expect(stray.status).toBe(400);
    // a web page's request (another origin, as after DNS rebinding) never reaches a session
    const page = await fetch(url, { method: "POST", headers: { authorization, origin: "http://evil.example", "content-type": "application/json" }, body: "{}" });
    expect(page.status).toBe(403);
  });

  it("gives a second session with other credentials its own view (dana, granted kbAdmin, sees kb.reindex)", async () => {
    const client = await stdioClient(["--as", "dana"]);
    const listed = names((await client.listTools()).tools);
    expect(listed).toContain("kb__reindex");
    expect(listed).not.toContain("customer__message");
    const r = await callTool(client, "kb__reindex", {});
    expect(r.isError).toBe(false);
  });

  it("acts as the identity a --creds file names, and refuses a --as that names someone else", async () => {
    const creds = await w.nats.credsOf({ kind: "agent", name: "support-bot" });
    const client = await stdioClient(["--creds", creds]);
    const r = await callTool(client, "kb__search", { query: "password" });
    expect(metaOf(r)).toMatchObject({ status: "succeeded" });
    const refused = await new Promise<{ code: number | null; err: string }>((done) => {
      const child = spawn(process.execPath, [MAIN, "mcp", "--as", "dana", "--creds", creds], { env, stdio: ["pipe", "pipe", "pipe"] });
      let err = "";
      child.stderr.on("data", (b: Buffer) => void (err += b.toString()));
      child.once("exit", (code) => done({ code, err }));
    });
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/is support-bot's, not dana's/);
  });

  it("asks the session's own person to confirm a send through elicitation, where the policy lets the requester confirm (human mode)", async () => {
    const asked: string[] = [];
    const client = await stdioClient(["--as", "alice", "--mode", "human"], { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, (req) => {
      asked.push(req.params.message);
      return { action: "accept", content: { confirm: true } };
    });
    const r = await callTool(client, "customer__message", { customerId: "C-3", text: "Confirmed by alice herself." });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain("customer.message");
    expect(asked[0]).toContain("Confirmed by alice herself.");
    expect(r).toMatchObject({ isError: false });
    expect(metaOf(r)).toMatchObject({ status: "succeeded" });
  });

  it("never asks support-bot's client to confirm: an agent's pending call stays pending", async () => {
    const asked: string[] = [];
    const client = await stdioClient(["--as", "support-bot", "--mode", "plan", "--timeout", "3s"], { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, (req) => {
      asked.push(req.params.message);
      return { action: "accept", content: { confirm: true } };
    });
    const r = await callTool(client, "customer__message", { customerId: "C-4", text: "hello" });
    expect(metaOf(r)).toMatchObject({ status: "awaiting_approval" });
    expect(asked).toEqual([]);
  });

  describe("in-process (the session without the CLI)", () => {
    let session: WardenMcpSession;
    let client: Client;

    beforeAll(async () => {
      const bus = await w.agentBus("support-bot");
      session = createWardenMcpSession({ bus, principal: "support-bot", progressIntervalMs: 100 });
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await session.connect(serverSide);
      client = new Client({ name: "e2e-memory", version: "1.0.0" });
      await client.connect(clientSide);
      clients.push(client);
    });
    afterAll(async () => session.close());

    it("reports progress while a long call runs, when the client sent a progress token", async () => {
      const progress: number[] = [];
      const r = await client.callTool({ name: "mcpt__slow", arguments: {} }, CallToolResultSchema, { onprogress: (p) => progress.push(p.progress) });
      expect(r.isError).toBe(false);
      expect(progress.length).toBeGreaterThanOrEqual(2);
      expect(progress).toEqual([...progress].sort((a, b) => a - b));
    });

    it("serves HTTP sessions only to a client with the bearer token, when one is set", async () => {
      const bus = await w.agentBus("support-bot");
      const http = await startMcpHttpServer({ createSession: () => createWardenMcpSession({ bus, principal: "support-bot" }), token: "s3cret-token" });
      try {
        expect(http).toMatchObject({ token: "s3cret-token", tokenGenerated: false });
        const anonymous = await fetch(http.url, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
        expect(anonymous.status).toBe(401);
        const client = new Client({ name: "e2e-token", version: "1.0.0" });
        await client.connect(new StreamableHTTPClientTransport(new URL(http.url), { requestInit: { headers: { authorization: "Bearer s3cret-token" } } }));
        expect(names((await client.listTools()).tools)).toContain("kb__search");
        expect(http.sessions()).toBe(1);
        await client.close();
      } finally {
        await http.stop();
      }
    });

    it("links a large output's artifact as a resource link beside its preview", async () => {
      const r = (await client.callTool({ name: "demo__big", arguments: {} })) as CallToolResult;
      expect(r.isError).toBe(false);
      expect(r.content[0]).toMatchObject({ type: "text", text: expect.stringMatching(/^PREVIEW /) });
      expect(r.content).toContainEqual(expect.objectContaining({ type: "resource_link", uri: expect.stringMatching(/^warden:\/\/artifacts\//), mimeType: "application/json" }));
    });
  });
});
