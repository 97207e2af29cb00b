import { execFile, spawn } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect } from "@nats-io/transport-node";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { STREAM_CALLS } from "@warden/contracts/subjects";
import { findNatsServerBinary, freePort } from "@warden/local-nats";
import { eventually } from "@warden/testing";
import { startTestWarden, type TestWarden } from "../support/warden.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const MAIN = resolve(ROOT, "cli/dist/main.js");

interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** stdout as one JSON document. */
  doc(): Record<string, unknown>;
}

/** The parent's environment less anything that would pick another Warden or identity. */
function cleanEnv(): NodeJS.ProcessEnv {
  const { NATS_URL: _url, NATS_CREDS: _creds, WARDEN_HOME: _home, WARDEN_PRINCIPAL: _principal, ...rest } = process.env;
  return rest;
}

function run(file: string, args: readonly string[], env: Record<string, string>): Promise<Ran> {
  return new Promise((done) => {
    execFile(file, [...args], { cwd: ROOT, env: { ...cleanEnv(), ...env }, timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === "number" ? err.code : -1) : 0;
      done({ code, stdout, stderr, doc: () => JSON.parse(stdout) as Record<string, unknown> });
    });
  });
}

/** The built CLI, as `warden` on PATH runs it. */
const warden = (args: readonly string[], env: Record<string, string>) => run(process.execPath, [MAIN, ...args], env);

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
  let env: Record<string, string>;

  beforeAll(async () => {
    w = await startTestWarden({ demo: true });
    await w.nats.home.addIdentity({ kind: "human", name: "alice" });
    await w.nats.home.addIdentity({ kind: "agent", name: "support-bot" });
    // the person at the terminal: `warden up --demo` mints it (DEMO_PEOPLE), the demo policy names it
    await w.nats.home.addIdentity({ kind: "human", name: "cli" });
    env = { WARDEN_HOME: w.nats.home.dir, LOG_LEVEL: "silent" };
  }, 60_000);

  afterAll(async () => {
    await w.stop();
  });

  it("runs as `npx warden … --json` with stdout one JSON document, where `npm run warden -- …` put npm's banner first", async () => {
    const npx = await run("npx", ["warden", "approvals", "--as", "alice", "--json"], env);
    expect(npx.code, npx.stderr).toBe(0);
    expect(JSON.parse(npx.stdout)).toHaveProperty("approvals");
    // control: the form the README used to write is what broke `| jq`
    const npmRun = await run("npm", ["run", "warden", "--", "approvals", "--as", "alice", "--json"], env);
    expect(npmRun.code).toBe(0);
    expect(npmRun.stdout).toContain("> node cli/dist/main.js");
    expect(isJson(npmRun.stdout)).toBe(false);
  });

  it("exits 3, not 1 like a failure, when a call waits for a person, and says so in its help", async () => {
    const args = JSON.stringify({ customerId: "C-pending", text: "Your refund is on its way" });
    const call = await warden(["call", "customer.message", "--args", args, "--mode", "plan", "--principal", "support-bot", "--json"], env);
    expect(call.doc(), call.stderr).toMatchObject({ status: "awaiting_approval" });
    expect(call.code).toBe(3);
    const refused = await warden(["call", "customer.message", "--args", "{}", "--mode", "plan", "--principal", "support-bot", "--json"], env);
    expect(refused.code).toBe(1);
    const help = await warden(["help"], env);
    expect(help.stdout).toContain("3 the call waits for a person");
  });

  it("names who may decide a waiting call, from its card, in the hint and in --json", async () => {
    const args = JSON.stringify({ customerId: "C-hint", text: "Your refund is on its way" });
    const call = await warden(["call", "customer.message", "--args", args, "--mode", "plan", "--principal", "support-bot"], env);
    expect(call.code, call.stderr).toBe(3);
    expect(call.stdout).toMatch(/may decide: .*alice/);
    expect(call.stdout).toMatch(/next: npx warden approve \S+ --as alice /);
    expect(call.stdout).not.toContain("<approver>");
    const json = await warden(["call", "customer.message", "--args", args, "--mode", "plan", "--principal", "support-bot", "--json"], env);
    expect(json.doc()["deciders"]).toContain("alice");
  });

  it("traces the call an approval id belongs to", async () => {
    const args = JSON.stringify({ customerId: "C-trace", text: "Your refund is on its way" });
    const call = await warden(["call", "customer.message", "--args", args, "--mode", "plan", "--principal", "support-bot", "--json"], env);
    const { callId, approvalId } = call.doc() as { callId: string; approvalId: string };
    // the approvals are a projection: the projector catches up in a moment
    await eventually(async () => {
      const t = await warden(["trace", approvalId, "--json"], env);
      expect(t.code, t.stderr).toBe(0);
      expect(t.doc()["callId"]).toBe(callId);
      expect(t.stderr).toContain(`approval ${approvalId} belongs to call ${callId}`);
    });
    const none = await warden(["trace", "no-such-id", "--json"], env);
    expect(none.code).toBe(1);
    expect(none.doc()).toMatchObject({ ok: false, error: { code: "NOT_FOUND" } });
  });

  it("suggests the closest tool names for a typo and records nothing", async () => {
    const before = (await w.bus.jsm.streams.info(STREAM_CALLS)).state.last_seq;
    const typo = await warden(["call", "kb.serch", "--args", '{"query":"refund"}', "--principal", "alice", "--json"], env);
    expect(typo.code, typo.stderr).toBe(1);
    expect(typo.doc()).toMatchObject({ ok: false, status: "rejected", error: { code: "UNKNOWN_TOOL" }, didYouMean: ["kb.search"], recorded: false });
    const text = await warden(["call", "kb.serch", "--args", '{"query":"refund"}', "--principal", "alice"], env);
    expect(text.stdout).toContain("did you mean kb.search?");
    expect((await w.bus.jsm.streams.info(STREAM_CALLS)).state.last_seq).toBe(before);
    // control: the tool it meant is a call, and it is recorded
    const meant = await warden(["call", "kb.search", "--args", '{"query":"refund"}', "--principal", "alice", "--json"], env);
    expect(meant.doc(), meant.stderr).toMatchObject({ ok: true, status: "succeeded" });
    expect((await w.bus.jsm.streams.info(STREAM_CALLS)).state.last_seq).toBeGreaterThan(before);
  });

  it("calls as the demo's default principal `cli` when no --principal is given", async () => {
    const call = await warden(["call", "kb.search", "--args", '{"query":"refund"}', "--json"], env);
    expect(call.doc(), call.stderr).toMatchObject({ ok: true, status: "succeeded" });
  });

  it("prints a Claude Desktop configuration that an MCP client starts as is", async () => {
    const printed = await warden(["mcp", "--as", "support-bot", "--print-config", "claude-desktop"], env);
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stderr).toContain("claude_desktop_config.json");
    const server = (JSON.parse(printed.stdout) as { mcpServers: { warden: { command: string; args: string[]; env: Record<string, string> } } }).mcpServers.warden;
    // what the desktop app does with it: start the command from its own folder, with that env
    const client = new Client({ name: "desktop-like", version: "1.0.0" });
    await client.connect(new StdioClientTransport({ command: server.command, args: server.args, env: { ...server.env, LOG_LEVEL: "silent" }, cwd: "/" }));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain("kb__search");
    } finally {
      await client.close();
    }
    const bad = await warden(["mcp", "--as", "support-bot", "--print-config", "vscode"], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("--print-config is one of claude-desktop, cursor, claude-code");
  });

  it("never lets NATS_CREDS silently override --as or --principal, and says whose credentials it used", async () => {
    const botCreds = w.nats.home.identity("support-bot")!.creds;
    const withEnv = { ...env, NATS_CREDS: botCreds };
    // no principal named: NATS_CREDS decides, and the call is asked as the identity it holds
    const asEnv = await warden(["call", "kb.search", "--args", '{"query":"refund"}', "--mode", "llm", "--json"], withEnv);
    expect(asEnv.doc(), asEnv.stderr).toMatchObject({ ok: true, status: "succeeded" });
    // --as names someone else: their credentials from WARDEN_HOME, and stderr says NATS_CREDS was not used
    const approvals = await warden(["approvals", "--as", "alice", "--json"], withEnv);
    expect(approvals.code, approvals.stderr).toBe(0);
    expect(approvals.stderr).toContain("acting as alice with its credentials from");
    expect(approvals.stderr).toContain("NATS_CREDS, support-bot's, is not used");
    // without a home that holds the one named, it refuses rather than act as support-bot
    const noHome = await warden(["approvals", "--as", "alice", "--json"], { LOG_LEVEL: "silent", NATS_CREDS: botCreds, NATS_URL: w.nats.url, WARDEN_HOME: "/nonexistent" });
    expect(noHome.code).toBe(1);
    expect(noHome.doc()).toMatchObject({ ok: false, error: { code: "FORBIDDEN" } });
    expect(noHome.doc()["error"]).toMatchObject({ message: expect.stringContaining("support-bot credentials, not alice's") });
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
      const status = await warden(["status", "--json"], { LOG_LEVEL: "silent", NATS_URL: url, WARDEN_HOME: "/nonexistent" });
      expect(status.code, status.stdout).toBe(2);
      expect(status.doc()).toMatchObject({ ok: false, error: { code: "UNAVAILABLE", message: expect.stringContaining("nothing answered") } });
      expect(status.stdout).not.toContain("internal error");
    } finally {
      server.kill("SIGKILL");
    }
  });
});
