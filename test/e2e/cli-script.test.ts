import { spawn } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect } from "@nats-io/transport-node";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { STREAM_CALLS } from "@warden/contracts/subjects";
import { findNatsServerBinary, freePort } from "@warden/local-nats";
import { eventually } from "@warden/testing";
import { outJson, runCommand, runWardenAt, spawnWarden, type CliRan, type WardenAt } from "../support/cli.js";
import { startTestWarden, type TestWarden } from "../support/warden.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

const isJson = (text: string): boolean => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

/** What a script meets: the form the README writes, exit codes it can branch on, hints it can follow. */
describe("the warden CLI as a script uses it", { timeout: 120_000 }, () => {
  let w: TestWarden;
  let at: WardenAt;
  /** A command run in this process (no node start-up each); what a script meets of the process itself (npx, npm, an exit code) runs one. */
  const warden = (...args: string[]): Promise<CliRan> => runWardenAt(at, ...args);

  beforeAll(async () => {
    w = await startTestWarden({ demo: true });
    await w.nats.home.addIdentity({ kind: "human", name: "alice" });
    await w.nats.home.addIdentity({ kind: "agent", name: "support-bot" });
    // the person at the terminal: `warden up --demo` mints it (DEMO_PEOPLE), the demo policy names it
    await w.nats.home.addIdentity({ kind: "human", name: "cli" });
    at = { home: w.nats.home.dir, cwd: ROOT };
  }, 60_000);

  afterAll(async () => {
    await w.stop();
  });

  it("runs as `npx warden … --json` with stdout one JSON document, where `npm run warden -- …` put npm's banner first", async () => {
    const npx = await runCommand(at, "npx", "warden", "approvals", "--as", "alice", "--json");
    expect(npx.code, npx.err).toBe(0);
    expect(JSON.parse(npx.out)).toHaveProperty("approvals");
    // control: the form the README used to write is what broke `| jq`
    const npmRun = await runCommand(at, "npm", "run", "warden", "--", "approvals", "--as", "alice", "--json");
    expect(npmRun.code).toBe(0);
    expect(npmRun.out).toContain("> node cli/dist/main.js");
    expect(isJson(npmRun.out)).toBe(false);
  });

  it("exits 3, not 1 like a failure, when a call waits for a person, and says so in its help", async () => {
    const args = JSON.stringify({ customerId: "C-pending", text: "Your refund is on its way" });
    // the exit code a script branches on is the process's
    const call = await spawnWarden(at, "call", "customer.message", "--args", args, "--mode", "plan", "--principal", "support-bot", "--json");
    expect(outJson(call), call.err).toMatchObject({ status: "awaiting_approval" });
    expect(call.code).toBe(3);
    const refused = await warden("call", "customer.message", "--args", "{}", "--mode", "plan", "--principal", "support-bot", "--json");
    expect(refused.code).toBe(1);
    const help = await warden("help");
    expect(help.out).toContain("3 the call waits for a person");
  });

  it("names who may decide a waiting call, from its card, in the hint and in --json", async () => {
    const args = JSON.stringify({ customerId: "C-hint", text: "Your refund is on its way" });
    const call = await warden("call", "customer.message", "--args", args, "--mode", "plan", "--principal", "support-bot");
    expect(call.code, call.err).toBe(3);
    expect(call.out).toMatch(/may decide: .*alice/);
    expect(call.out).toMatch(/next: npx warden approve \S+ --as alice /);
    expect(call.out).not.toContain("<approver>");
    const json = await warden("call", "customer.message", "--args", args, "--mode", "plan", "--principal", "support-bot", "--json");
    expect(outJson(json)["deciders"]).toContain("alice");
  });

  it("traces the call an approval id belongs to", async () => {
    const args = JSON.stringify({ customerId: "C-trace", text: "Your refund is on its way" });
    const call = await warden("call", "customer.message", "--args", args, "--mode", "plan", "--principal", "support-bot", "--json");
    const { callId, approvalId } = outJson(call) as { callId: string; approvalId: string };
    // the approvals are a projection: the projector catches up in a moment
    await eventually(async () => {
      const t = await warden("trace", approvalId, "--json");
      expect(t.code, t.err).toBe(0);
      expect(outJson(t)["callId"]).toBe(callId);
      expect(t.err).toContain(`approval ${approvalId} belongs to call ${callId}`);
    });
    const none = await warden("trace", "no-such-id", "--json");
    expect(none.code).toBe(1);
    expect(outJson(none)).toMatchObject({ ok: false, error: { code: "NOT_FOUND" } });
  });

  it("suggests the closest tool names for a typo and records nothing", async () => {
    const before = (await w.bus.jsm.streams.info(STREAM_CALLS)).state.last_seq;
    const typo = await warden("call", "kb.serch", "--args", '{"query":"refund"}', "--principal", "alice", "--json");
    expect(typo.code, typo.err).toBe(1);
    expect(outJson(typo)).toMatchObject({ ok: false, status: "rejected", error: { code: "UNKNOWN_TOOL" }, didYouMean: ["kb.search"], recorded: false });
    const text = await warden("call", "kb.serch", "--args", '{"query":"refund"}', "--principal", "alice");
    expect(text.out).toContain("did you mean kb.search?");
    expect((await w.bus.jsm.streams.info(STREAM_CALLS)).state.last_seq).toBe(before);
    // control: the tool it meant is a call, and it is recorded
    const meant = await warden("call", "kb.search", "--args", '{"query":"refund"}', "--principal", "alice", "--json");
    expect(outJson(meant), meant.err).toMatchObject({ ok: true, status: "succeeded" });
    expect((await w.bus.jsm.streams.info(STREAM_CALLS)).state.last_seq).toBeGreaterThan(before);
  });

  it("calls as the demo's default principal `cli` when no --principal is given", async () => {
    const call = await warden("call", "kb.search", "--args", '{"query":"refund"}', "--json");
    expect(outJson(call), call.err).toMatchObject({ ok: true, status: "succeeded" });
  });

  it("prints a Claude Desktop configuration that an MCP client starts as is", async () => {
    const printed = await warden("mcp", "--as", "support-bot", "--print-config", "claude-desktop");
    expect(printed.code, printed.err).toBe(0);
    expect(printed.err).toContain("claude_desktop_config.json");
    const server = (JSON.parse(printed.out) as { mcpServers: { warden: { command: string; args: string[]; env: Record<string, string> } } }).mcpServers.warden;
    // what the desktop app does with it: start the command from its own folder, with that env
    const client = new Client({ name: "desktop-like", version: "1.0.0" });
    await client.connect(new StdioClientTransport({ command: server.command, args: server.args, env: { ...server.env, LOG_LEVEL: "silent" }, cwd: "/" }));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain("kb__search");
    } finally {
      await client.close();
    }
    const bad = await warden("mcp", "--as", "support-bot", "--print-config", "vscode");
    expect(bad.code).toBe(1);
    expect(bad.err).toContain("--print-config is one of claude-desktop, cursor, claude-code");
  });

  it("never lets NATS_CREDS silently override --as or --principal, and says whose credentials it used", async () => {
    const botCreds = w.nats.home.identity("support-bot")!.creds;
    const withEnv = { ...at, env: { NATS_CREDS: botCreds } };
    // no principal named: NATS_CREDS decides, and the call is asked as the identity it holds
    const asEnv = await runWardenAt(withEnv, "call", "kb.search", "--args", '{"query":"refund"}', "--mode", "llm", "--json");
    expect(outJson(asEnv), asEnv.err).toMatchObject({ ok: true, status: "succeeded" });
    // --as names someone else: their credentials from WARDEN_HOME, and stderr says NATS_CREDS was not used
    const approvals = await runWardenAt(withEnv, "approvals", "--as", "alice", "--json");
    expect(approvals.code, approvals.err).toBe(0);
    expect(approvals.err).toContain("acting as alice with its credentials from");
    expect(approvals.err).toContain("NATS_CREDS, support-bot's, is not used");
    // without a home that holds the one named, it refuses rather than act as support-bot
    const noHome = await runWardenAt({ home: "/nonexistent", env: { NATS_CREDS: botCreds, NATS_URL: w.nats.url } }, "approvals", "--as", "alice", "--json");
    expect(noHome.code).toBe(1);
    expect(outJson(noHome)).toMatchObject({ ok: false, error: { code: "FORBIDDEN" } });
    expect(outJson(noHome)["error"]).toMatchObject({ message: expect.stringContaining("support-bot credentials, not alice's") });
  });
});

describe("warden status when nothing answers", { timeout: 60_000 }, () => {
  it("says plainly that no Warden answered, exit 2, instead of an internal error", async () => {
    // a bare nats-server with no JetStream and no Warden behind it: reachable, but nothing answers
    const port = await freePort();
    const server = spawn(findNatsServerBinary()!, ["-a", "127.0.0.1", "-p", String(port)], { stdio: "ignore" });
    try {
      const url = `nats://127.0.0.1:${port}`;
      await eventually(async () => {
        const probe = await connect({ servers: url });
        await probe.close();
      });
      const status = await runWardenAt({ home: "/nonexistent", env: { NATS_URL: url } }, "status", "--json");
      expect(status.code, status.out).toBe(2);
      expect(outJson(status)).toMatchObject({ ok: false, error: { code: "UNAVAILABLE", message: expect.stringContaining("nothing answered") } });
      expect(status.out).not.toContain("internal error");
    } finally {
      server.kill("SIGKILL");
    }
  });
});
