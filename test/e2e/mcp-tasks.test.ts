import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { CallToolResultSchema, CreateTaskResultSchema, type CallToolResult, type Task } from "@modelcontextprotocol/sdk/types.js";
import { PolicyDocumentSchema } from "@warden/contracts/policy";
import { type PendingApproval } from "@warden/contracts/approval";
import { readOutbox } from "@warden/example-support-desk";
import { createWardenMcpSession, WARDEN_META_KEY, type WardenMcpSession } from "@warden/mcp-server";
import { type ApproverClient } from "@warden/sdk";
import { eventually } from "@warden/testing";
import { usualPrincipals } from "../support/usual-principals.js";
import { startTestWarden, type TestWarden } from "../support/warden.js";

const MAIN = resolve(dirname(fileURLToPath(import.meta.url)), "../../cli/dist/main.js");

/** alice decides sends; support-bot, a plan in this test, may ask for them. */
const POLICY = PolicyDocumentSchema.parse({
  version: "mcp-tasks-e2e-1",
  principals: {
    ...usualPrincipals("alice", "support-bot"),
    "other-bot": { kind: "agent" },
  },
});

function textOf(r: CallToolResult): string {
  return r.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
}

function metaOf(r: CallToolResult): Record<string, unknown> {
  return (r._meta?.[WARDEN_META_KEY] ?? {}) as Record<string, unknown>;
}

function cleanEnv(): Record<string, string> {
  const { NATS_URL: _url, NATS_CREDS: _creds, WARDEN_HOME: _home, WARDEN_PRINCIPAL: _p, ...rest } = process.env;
  return Object.fromEntries(Object.entries(rest).filter((e): e is [string, string] => e[1] !== undefined));
}

/** A client that asks for a task, as a client with task support does (callToolStream sends the same request). */
async function callAsTask(client: Client, name: string, args: Record<string, unknown>): Promise<Task> {
  const created = await client.request({ method: "tools/call", params: { name, arguments: args, task: { ttl: 600_000 } } }, CreateTaskResultSchema);
  return created.task;
}

describe("warden mcp closes the approval loop: a call that waits for a person is an MCP task", { timeout: 120_000 }, () => {
  let w: TestWarden;
  let alice: ApproverClient;
  let env: Record<string, string>;
  const clients: Client[] = [];
  const sessions: WardenMcpSession[] = [];

  /** The official client on an in-process session as support-bot (plan mode: a send waits for alice). */
  async function connectSession(opts: { callTimeoutMs?: number; principal?: string } = {}): Promise<Client> {
    const { principal = "support-bot", ...rest } = opts;
    const session = createWardenMcpSession({ bus: await w.agentBus(principal), principal, mode: "plan", progressIntervalMs: 100, taskPollIntervalMs: 200, ...rest });
    sessions.push(session);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await session.connect(serverSide);
    const client = new Client({ name: "e2e-tasks", version: "1.0.0" });
    await client.connect(clientSide);
    clients.push(client);
    return client;
  }

  /** `warden mcp` over stdio as its own process, as an MCP client starts it. */
  async function stdioClient(): Promise<Client> {
    const client = new Client({ name: "e2e-tasks-stdio", version: "1.0.0" });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [MAIN, "mcp", "--as", "support-bot", "--mode", "plan"], env, stderr: "inherit" }));
    clients.push(client);
    return client;
  }

  /** alice's inbox entry for a call, as the inbox reads it. */
  async function cardOf(callId: string): Promise<PendingApproval> {
    let card: PendingApproval | undefined;
    await eventually(async () => {
      const pending = await alice.pending();
      expect(pending.ok).toBe(true);
      card = pending.ok ? pending.value.find((a) => a.callId === callId) : undefined;
      expect(card).toBeDefined();
    }, 10_000);
    return card!;
  }

  async function approve(callId: string): Promise<void> {
    const card = await cardOf(callId);
    expect(await alice.approve(card.approvalId, card.argsHash, "fine")).toMatchObject({ ok: true });
  }

  beforeAll(async () => {
    w = await startTestWarden({ demo: true, policy: POLICY });
    await w.nats.home.addIdentity({ kind: "human", name: "alice" });
    await w.nats.home.addIdentity({ kind: "agent", name: "support-bot" });
    await w.nats.home.addIdentity({ kind: "agent", name: "other-bot" });
    alice = await w.approver("alice");
    env = { ...cleanEnv(), WARDEN_HOME: w.nats.home.dir, LOG_LEVEL: "warn" };
  }, 60_000);

  afterAll(async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    await Promise.allSettled(sessions.map((s) => s.close()));
    await w.stop();
  });

  it("answers a send with a task input_required showing the card, and completes it with the send's result once alice approves", async () => {
    const client = await connectSession();
    const listed = (await client.listTools()).tools.find((t) => t.name === "customer__message");
    expect(listed?.execution).toEqual({ taskSupport: "optional" });
    expect(client.getServerCapabilities()?.tasks).toMatchObject({ requests: { tools: { call: {} } } });

    const seen: Task[] = [];
    let result: CallToolResult | undefined;
    // the SDK's own task flow: taskCreated, taskStatus, then tasks/result
    const stream = client.experimental.tasks.callToolStream({ name: "customer__message", arguments: { customerId: "C-1", text: "Your refund is on its way." } }, CallToolResultSchema, { task: { ttl: 600_000 } });
    for await (const message of stream) {
      if (message.type === "taskCreated" || message.type === "taskStatus") {
        seen.push(message.task);
        if (message.task.status === "input_required" && seen.filter((t) => t.status === "input_required").length === 1) await approve(message.task.taskId);
      }
      if (message.type === "result") result = message.result as CallToolResult;
      if (message.type === "error") throw message.error;
    }
    const first = seen[0]!;
    expect(first).toMatchObject({ status: "input_required", pollInterval: 200 });
    // the status message is the card's first line: what, to whom, who decides
    expect(first.statusMessage).toMatch(/^Waiting for alice to approve: .*C-1.*Your refund is on its way\./);
    expect(result).toMatchObject({ isError: false });
    expect(textOf(result!)).toContain('"delivered":true');
    expect(metaOf(result!)).toMatchObject({ status: "succeeded", callId: first.taskId });
    // the task's id is the Warden call's id: its state is the stream's
    expect(await client.experimental.tasks.getTask(first.taskId)).toMatchObject({ taskId: first.taskId, status: "completed" });
  });

  it("gives a client that reconnects (a new warden mcp process) the result by tasks/get and tasks/result", async () => {
    const first = await stdioClient();
    const task = await callAsTask(first, "customer__message", { customerId: "C-2", text: "Sent after a reconnect." });
    expect(task.status).toBe("input_required");
    await first.close();

    await approve(task.taskId);
    const second = await stdioClient();
    await eventually(async () => expect(await second.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: "completed" }), 10_000);
    const result = await second.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result).toMatchObject({ isError: false });
    expect(textOf(result as CallToolResult)).toContain('"customerId":"C-2"');
    expect(result._meta).toMatchObject({ "io.modelcontextprotocol/related-task": { taskId: task.taskId } });
    // another identity holding the task id sees no such task: the registry answers each only about their own calls
    const stranger = await connectSession({ principal: "other-bot" });
    await expect(stranger.experimental.tasks.getTask(task.taskId)).rejects.toThrow(/Task not found/);
    await expect(stranger.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)).rejects.toThrow(/Task not found/);
    await expect(stranger.readResource({ uri: `warden://calls/${task.taskId}` })).rejects.toThrow(/no call/);
  });

  it("cancels the call with tasks/cancel while it waits: it never runs and leaves alice's inbox", async () => {
    const client = await connectSession();
    const task = await callAsTask(client, "customer__message", { customerId: "C-6", text: "Never mind." });
    await cardOf(task.taskId);
    expect(await client.experimental.tasks.cancelTask(task.taskId)).toMatchObject({ taskId: task.taskId, status: "cancelled" });
    const result = (await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)) as CallToolResult;
    expect(metaOf(result)).toMatchObject({ status: "cancelled", code: "CANCELLED" });
    await eventually(async () => {
      const pending = await alice.pending();
      expect(pending.ok && pending.value.some((a) => a.callId === task.taskId)).toBe(false);
    }, 10_000);
  });

  it("fails the task with alice's reason when she denies the send", async () => {
    const client = await connectSession();
    const task = await callAsTask(client, "customer__message", { customerId: "C-3", text: "Something alice will not send." });
    expect(task.status).toBe("input_required");
    const card = await cardOf(task.taskId);
    expect(await alice.deny(card.approvalId, card.argsHash, "wrong customer")).toMatchObject({ ok: true });
    await eventually(async () => {
      const now = await client.experimental.tasks.getTask(task.taskId);
      expect(now).toMatchObject({ status: "failed", statusMessage: expect.stringMatching(/APPROVAL_DENIED: denied by alice: wrong customer/) });
    }, 10_000);
    const result = (await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("wrong customer");
  });

  it("gives a client without tasks a bounded wait with progress, then a handle resource it reads later", async () => {
    const client = await connectSession({ callTimeoutMs: 1_500 });
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates).toContainEqual(expect.objectContaining({ uriTemplate: "warden://calls/{callId}" }));
    const progress: string[] = [];
    const started = Date.now();
    const r = (await client.callTool({ name: "customer__message", arguments: { customerId: "C-4", text: "Read me later." } }, CallToolResultSchema, {
      onprogress: (p) => progress.push(p.message ?? ""),
    })) as CallToolResult;
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_400);
    expect(progress.some((m) => /waiting for a person's approval/.test(m))).toBe(true);
    expect(r.isError).toBe(true);
    const callId = String(metaOf(r)["callId"]);
    const uri = `warden://calls/${callId}`;
    expect(metaOf(r)).toMatchObject({ status: "awaiting_approval", handle: uri });
    expect(r.content).toContainEqual(expect.objectContaining({ type: "resource_link", uri }));
    expect(textOf(r)).toContain(`Read ${uri} later`);

    const waiting = await client.readResource({ uri });
    expect(JSON.parse((waiting.contents[0] as { text: string }).text)).toMatchObject({ callId, status: "awaiting_approval", message: expect.stringMatching(/^Waiting for alice/) });
    expect((await client.listResources()).resources.map((x) => x.uri)).toContain(uri);

    await approve(callId);
    await eventually(async () => {
      const read = await client.readResource({ uri });
      const state = JSON.parse((read.contents[0] as { text: string }).text) as Record<string, unknown>;
      expect(state).toMatchObject({ status: "succeeded", result: { isError: false } });
      expect(JSON.stringify(state["result"])).toContain("C-4");
    }, 10_000);
    // a handle of no call of this principal is no resource
    await expect(client.readResource({ uri: "warden://calls/no-such-call" })).rejects.toThrow(/no call no-such-call/);
  });

  it("follows the first call when the same session asks again with the same tool and args: one approval, one send", async () => {
    const client = await connectSession({ callTimeoutMs: 300 });
    const args = { customerId: "C-5", text: "Only once, please." };
    // at once and one after the other, as a model that retries does
    const [a, b] = (await Promise.all([client.callTool({ name: "customer__message", arguments: args }), client.callTool({ name: "customer__message", arguments: args })])) as CallToolResult[];
    const c = (await client.callTool({ name: "customer__message", arguments: args })) as CallToolResult;
    const task = await callAsTask(client, "customer__message", args);
    const callId = String(metaOf(a!)["callId"]);
    expect([metaOf(b!)["callId"], metaOf(c)["callId"], task.taskId]).toEqual([callId, callId, callId]);
    // control: other args are another call, with an approval of its own
    const other = (await client.callTool({ name: "customer__message", arguments: { ...args, text: "Something else." } })) as CallToolResult;
    expect(metaOf(other)["callId"]).not.toBe(callId);
    const pending = await alice.pending();
    expect(pending.ok).toBe(true);
    if (!pending.ok) return;
    expect(pending.value.filter((p) => p.callId === callId)).toHaveLength(1);
    expect(pending.value.filter((p) => p.argsPreview.includes("Only once, please."))).toHaveLength(1);

    // once that call has ended, the same ask is a new call
    await approve(callId);
    await eventually(async () => expect(await client.experimental.tasks.getTask(callId)).toMatchObject({ status: "completed" }), 10_000);
    expect((await readOutbox(w.bus)).filter((m) => m.text === args.text).map((m) => m.callId)).toEqual([callId]);
    const again = (await client.callTool({ name: "customer__message", arguments: args })) as CallToolResult;
    expect(metaOf(again)).toMatchObject({ status: "awaiting_approval" });
    expect(metaOf(again)["callId"]).not.toBe(callId);
    // another session asking the same is its own call
    const elsewhere = await connectSession({ callTimeoutMs: 300 });
    const theirs = (await elsewhere.callTool({ name: "customer__message", arguments: args })) as CallToolResult;
    expect(metaOf(theirs)["callId"]).not.toBe(metaOf(again)["callId"]);
  });
});
