import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { PolicyDocumentSchema } from "@warden/contracts/policy";
import { readOutbox } from "@warden/example-support-desk";
import { createWardenMcpSession, startMcpHttpServer, WARDEN_META_KEY } from "@warden/mcp-server";
import { callEvents, eventTypes, eventually } from "@warden/testing";
import { startMcpHttp, type RunningMcpHttp } from "../support/mcp-http.js";
import { usualPrincipals } from "../support/usual-principals.js";
import { startTestWarden, type TestWarden } from "../support/warden.js";

const MAIN = resolve(dirname(fileURLToPath(import.meta.url)), "../../cli/dist/main.js");

/** The demo, with alice a person who may confirm her own sends in mode human (as issue 25's attack used). */
const POLICY = PolicyDocumentSchema.parse({
  version: "local-user-1",
  principals: usualPrincipals("alice", "support-bot"),
});

const textOf = (r: CallToolResult) => r.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
const metaOf = (r: CallToolResult) => (r._meta?.[WARDEN_META_KEY] ?? {}) as Record<string, unknown>;

/** An MCP client that answers every elicitation "confirm", as an attacker's client would. */
function confirmingClient(asked: string[]): Client {
  const client = new Client({ name: "local-user", version: "1.0.0" }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, (req) => {
    asked.push(req.params.message);
    return { action: "accept", content: { confirm: true } };
  });
  return client;
}

/**
 * Issue 25's local user: another process on the machine, holding no Warden credentials, that can
 * reach `warden mcp --http`'s port. Before, it connected without a token as alice (mode human),
 * answered the elicitation "confirm" itself, and alice's message was delivered.
 */
describe("a local user reaching warden mcp --http", { timeout: 120_000 }, () => {
  let w: TestWarden;
  let mcp: RunningMcpHttp;
  const clients: Client[] = [];

  beforeAll(async () => {
    w = await startTestWarden({ demo: true, policy: POLICY });
    await w.nats.home.addIdentity({ kind: "human", name: "alice" });
    // as the issue ran it: no WARDEN_MCP_TOKEN
    mcp = await startMcpHttp(w.nats.home.dir, ["--as", "alice", "--mode", "human", "--timeout", "3s"]);
  }, 60_000);

  afterAll(async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    mcp?.stop();
    await w?.stop();
  });

  it("is refused without this run's token, by the official SDK client and by raw requests, and no session opens", async () => {
    expect(mcp.token).toMatch(/^[A-Za-z0-9_-]{43,}$/);
    const anonymous = new Client({ name: "anonymous", version: "1.0.0" });
    await expect(anonymous.connect(new StreamableHTTPClientTransport(new URL(mcp.url)))).rejects.toMatchObject({ code: 401, message: expect.stringContaining("FORBIDDEN") });
    const initialize = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } });
    const wrong = `${mcp.token.slice(0, -1)}${mcp.token.endsWith("A") ? "B" : "A"}`;
    for (const authorization of [undefined, "Bearer", `Bearer ${wrong}`, `Basic ${mcp.token}`, `Bearer ${mcp.token}x`]) {
      const res = await fetch(mcp.url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...(authorization === undefined ? {} : { authorization }) },
        body: initialize,
      });
      expect(res.status, authorization).toBe(401);
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect(await res.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32000, data: { code: "FORBIDDEN" }, message: expect.stringContaining("Authorization: Bearer") } });
    }
    // the token guards every path, so nothing tells a stranger what is served where
    expect((await fetch(new URL("/elsewhere", mcp.url))).status).toBe(401);
    expect(mcp.output()).not.toContain("mcp session opened");
    // with the printed token the same client works
    const client = new Client({ name: "with-token", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcp.url), { requestInit: { headers: { authorization: `Bearer ${mcp.token}` } } }));
    clients.push(client);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("customer__message");
    await eventually(() => expect(mcp.output()).toContain("mcp session opened"));
  });

  it("cannot confirm alice's send from an HTTP client, even holding the token: nothing is delivered until alice decides elsewhere; over stdio her own client confirms", async () => {
    const asked: string[] = [];
    const http = confirmingClient(asked);
    await http.connect(new StreamableHTTPClientTransport(new URL(mcp.url), { requestInit: { headers: { authorization: `Bearer ${mcp.token}` } } }));
    clients.push(http);
    const text = "Sent by whoever reached the port.";
    const r = (await http.callTool({ name: "customer__message", arguments: { customerId: "C-25", text } })) as CallToolResult;
    expect(asked).toEqual([]);
    expect(r.isError).toBe(true);
    expect(metaOf(r)).toMatchObject({ status: "awaiting_approval", approvalId: expect.any(String) });
    const approvalId = String(metaOf(r)["approvalId"]);
    expect(textOf(r)).toContain("warden inbox --as alice");
    expect(textOf(r)).toContain(`warden approve ${approvalId} --as alice`);
    const callId = String(metaOf(r)["callId"]);
    expect(eventTypes(await callEvents(w.bus, callId))).not.toContain("ApprovalGranted");
    expect((await readOutbox(w.bus)).map((m) => m.text)).not.toContain(text);

    // the decision elsewhere (what the inbox and `warden approve` do, as alice) lets it run
    const alice = await w.approver("alice");
    const pending = await alice.pending();
    const card = pending.ok ? pending.value.find((a) => a.approvalId === approvalId) : undefined;
    expect(card?.approvers.requesterMayConfirm).toBe(true);
    expect((await alice.approve(approvalId, card!.argsHash, "sent after all")).ok).toBe(true);
    await eventually(async () => expect((await readOutbox(w.bus)).map((m) => m.text)).toContain(text), 20_000);

    // control: the very same client over stdio, alice's own process, still confirms and sends
    const { NATS_URL: _u, NATS_CREDS: _c, ...env } = process.env;
    const stdioAsked: string[] = [];
    const stdio = confirmingClient(stdioAsked);
    await stdio.connect(new StdioClientTransport({ command: process.execPath, args: [MAIN, "mcp", "--as", "alice", "--mode", "human"], env: { ...(env as Record<string, string>), WARDEN_HOME: w.nats.home.dir, LOG_LEVEL: "warn" }, stderr: "inherit" }));
    clients.push(stdio);
    const own = "Confirmed by alice in her own client.";
    const s = (await stdio.callTool({ name: "customer__message", arguments: { customerId: "C-25", text: own } })) as CallToolResult;
    expect(stdioAsked).toHaveLength(1);
    expect(metaOf(s)).toMatchObject({ status: "succeeded" });
    expect((await readOutbox(w.bus)).map((m) => m.text)).toContain(own);
  });

  it("makes a token when the library is given none, and no request without it reaches a session", async () => {
    let made = 0;
    const bus = await w.humanBus("alice");
    const server = await startMcpHttpServer({ createSession: () => (made++, createWardenMcpSession({ bus, principal: "alice", mode: "human" })) });
    try {
      expect(server.tokenGenerated).toBe(true);
      expect(Buffer.from(server.token, "base64url")).toHaveLength(32);
      const anonymous = new Client({ name: "anonymous", version: "1.0.0" });
      await expect(anonymous.connect(new StreamableHTTPClientTransport(new URL(server.url)))).rejects.toMatchObject({ code: 401, message: expect.stringContaining("FORBIDDEN") });
      expect(made).toBe(0);
      expect(server.sessions()).toBe(0);
      const other = await startMcpHttpServer({ createSession: () => createWardenMcpSession({ bus, principal: "alice" }) });
      // each run its own token
      expect(other.token).not.toBe(server.token);
      await other.stop();
    } finally {
      await server.stop();
    }
  });
});
