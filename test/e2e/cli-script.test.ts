import { execFile } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
});
