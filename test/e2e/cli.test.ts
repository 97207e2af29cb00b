import { execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Bus } from "@warden/bus";
import { newId } from "@warden/contracts/events";
import { PolicyDocumentSchema } from "@warden/contracts/policy";
import { readOutbox, supportDeskPolicy } from "@warden/example-support-desk";
import { stringify as toYaml } from "yaml";
import { freePort } from "@warden/local-nats";
import { callEvents, eventually } from "@warden/testing";
import { startTestWarden, type TestWarden } from "../support/warden.js";

const MAIN = resolve(dirname(fileURLToPath(import.meta.url)), "../../cli/dist/main.js");

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** stdout parsed as exactly one JSON document. */
  readonly doc: Record<string, unknown>;
}

/** The parent's environment less anything that would pick another Warden or identity for the command. */
function cleanEnv(): NodeJS.ProcessEnv {
  const { NATS_URL: _url, NATS_CREDS: _creds, WARDEN_HOME: _home, WARDEN_PRINCIPAL: _principal, ...rest } = process.env;
  return rest;
}

function warden(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((done) => {
    execFile(process.execPath, [MAIN, ...args], { env: { ...cleanEnv(), ...env }, timeout: 20_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === "number" ? err.code : -1) : 0;
      let doc: Record<string, unknown> = {};
      try {
        doc = JSON.parse(stdout) as Record<string, unknown>;
      } catch {
        doc = { unparsable: stdout };
      }
      done({ code, stdout, stderr, doc });
    });
  });
}

// each command is a fresh node process (a few seconds on a busy machine), and a test runs several
// the person `warden up --demo` suggests approving as: the demo policy's human who approves sends
const approver = "alice";

describe("the warden CLI against a real nats-server and the services", { timeout: 90_000 }, () => {
  let w: TestWarden;
  let bus: Bus;
  let env: Record<string, string>;

  beforeAll(async () => {
    // every service as its own identity, the support-desk demo and its policy, as `warden up --demo` runs them
    w = await startTestWarden({ demo: true });
    bus = w.bus;
    // the people and the agent the commands act as: their credentials in WARDEN_HOME, as `warden up --demo` mints them
    for (const name of [approver, "dana"]) await w.nats.home.addIdentity({ kind: "human", name });
    await w.nats.home.addIdentity({ kind: "agent", name: "support-bot" });
    // commands find the server and every identity's credentials in WARDEN_HOME/env.json
    env = { WARDEN_HOME: w.nats.home.dir, LOG_LEVEL: "silent" };
  }, 60_000);

  afterAll(async () => {
    await w.stop();
  });

  it("lists an llm caller's tools without send tools, and explains why they are hidden", async () => {
    const r = await warden(["tools", "--mode", "llm", "--principal", "support-bot", "--explain", "--format", "openai", "--json"], env);
    expect(r.code).toBe(0);
    const view = r.doc["view"] as { tools: { name: string }[]; hidden: { name: string; reason: string }[] };
    expect(view.tools.map((t) => t.name)).toContain("kb.search");
    expect(view.tools.map((t) => t.name)).not.toContain("customer.message");
    // never listed, and --explain says what a model's call of it does: it waits for a person
    expect(view.hidden).toContainEqual(expect.objectContaining({ name: "customer.message", reason: "send_never_listed_for_llm", detail: expect.stringMatching(/waits for a person to confirm it \(default\.send\.llm\)/) }));
    expect(r.doc["formatted"]).toContainEqual(expect.objectContaining({ type: "function", function: expect.objectContaining({ name: "kb__search" }) }));
  });

  it("shows each tool's permission level and action type, in the table and in --json", async () => {
    const json = await warden(["tools", "--principal", approver, "--json"], env);
    expect(json.code, json.stderr).toBe(0);
    const entries = (json.doc["view"] as { tools: { name: string; level: string; actionType?: string }[] }).tools;
    const shown = Object.fromEntries(entries.map((t) => [t.name, [t.level, t.actionType ?? "-"]]));
    expect(shown).toMatchObject({
      "kb.search": ["L0", "search"],
      "ticket.submit": ["L2", "write"],
      "ticket.withdraw": ["L2", "patch"],
      "customer.message": ["L4", "external_send"],
    });
    const table = await warden(["tools", "--principal", approver], env);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^NAME\s+WIRE NAME\s+VERSION\s+GRADE\s+LEVEL\s+ACTION\s+ON CALL\s+ACTS AS\s+WHY$/m);
    expect(table.stdout).toMatch(/^customer\.message\s+\S+\s+1\.2\.0\s+send\s+L4\s+external_send\s+require_approval\s/m);
    expect(table.stdout).toMatch(/^kb\.search\s+\S+\s+1\.1\.0\s+read\s+L0\s+search\s+allow\s/m);
  });

  it("runs a read call, prints its result as one JSON document, and records the check of its output schema", async () => {
    const r = await warden(["call", "kb.search", "--args", '{"query":"refund"}', "--mode", "llm", "--principal", "support-bot", "--json"], env);
    expect(r.code).toBe(0);
    expect(r.doc).toMatchObject({ ok: true, status: "succeeded" });
    expect(typeof r.doc["callId"]).toBe("string");
    // kb.search declares an outputSchema: the executor records what the check found, and trace shows it
    const validated = (await callEvents(bus, r.doc["callId"] as string)).find((e) => e.type === "ToolResultValidated");
    expect(validated?.type === "ToolResultValidated" && validated.data).toMatchObject({ ok: true, checks: [{ check: "outputSchema", ok: true }] });
    const trace = await warden(["trace", r.doc["callId"] as string], env);
    expect(trace.stdout).toMatch(/ToolResultValidated/);
  });

  it("exits 1 with a structured error for a hallucinated tool", async () => {
    // a person (mode human, the CLI's default) asks for a tool no one registered
    const r = await warden(["call", "kb.searchEverything", "--args", "{}", "--principal", approver, "--json"], env);
    expect(r.code).toBe(1);
    expect(r.doc).toMatchObject({ ok: false, status: "rejected", error: { code: "UNKNOWN_TOOL" }, recorded: false });
  });

  it("holds a send for approval, lists it, and runs it once a human approves", async () => {
    const customerId = `cust-${newId()}`;
    const args = JSON.stringify({ customerId, text: "Your refund is on its way" });
    const call = await warden(["call", "customer.message", "--args", args, "--mode", "plan", "--principal", "support-bot", "--json"], env);
    expect(call.code).toBe(3);
    expect(call.doc).toMatchObject({ ok: false, status: "awaiting_approval", requiresConfirm: true });
    const approvalId = call.doc["approvalId"] as string;
    const callId = call.doc["callId"] as string;

    const list = await warden(["approvals", "--as", approver, "--json"], env);
    expect(list.code).toBe(0);
    expect(list.doc["approvals"]).toContainEqual(expect.objectContaining({ approvalId, callId, tool: "customer.message" }));
    expect(JSON.stringify(await readOutbox(bus))).not.toContain(customerId);

    const granted = await warden(["approve", approvalId, "--as", approver, "--reason", "checked", "--json"], env);
    expect(granted.code).toBe(0);
    expect(granted.doc).toMatchObject({ ok: true, approvalId, callId, decision: "grant" });

    await eventually(async () => expect(JSON.stringify(await readOutbox(bus))).toContain(customerId));
    const trace = await eventually(async () => {
      const t = await warden(["trace", callId, "--json"], env);
      const types = (t.doc["events"] as { type: string }[]).map((e) => e.type);
      expect(types.at(-1)).toBe("ToolCallFinished");
      return types;
    });
    expect(trace).toEqual([
      "ToolCallRequested",
      "ToolArgsValidated",
      "ToolPolicyChecked",
      "ApprovalRequested",
      "ApprovalGranted",
      "ToolCallStarted",
      "ToolCallFinished",
    ]);
    const text = await warden(["trace", callId, "--wide"], env);
    expect(text.stdout).toMatch(new RegExp(`ApprovalGranted +${approver} +approval=${approvalId} approver=${approver} argsHash=sha256:[0-9a-f]{64}`));
  });

  it("prints the approval card with the call's intent, grants edited args, and cancels a call before it starts", async () => {
    const customerId = `cust-${newId()}`;
    const args = JSON.stringify({ customerId, text: "ur refund is done" });
    const call = await warden(["call", "customer.message", "--args", args, "--mode", "plan", "--principal", "support-bot", "--goal", "close the refund ticket", "--why", "it was paid today", "--json"], env);
    const approvalId = call.doc["approvalId"] as string;
    const callId = call.doc["callId"] as string;
    const cards = await warden(["approvals", "--as", approver], env);
    const card = cards.stdout.split("\n\n").find((c) => c.includes(approvalId))!;
    expect(card).toMatch(/tool +Send a message to a customer \(customer\.message\), grade send, openWorld/);
    expect(card).toMatch(/asked by +support-bot \(support-bot, mode plan\)/);
    expect(card).toMatch(/goal +close the refund ticket\n +why +it was paid today/);
    expect(card).toMatch(/decides +.*alice/);

    const edited = { customerId, text: "Your refund has been paid." };
    const granted = await warden(["approve", approvalId, "--as", approver, "--args", JSON.stringify(edited), "--json"], env);
    expect(granted.doc).toMatchObject({ ok: true, decision: "grant", grantedArgsHash: expect.stringMatching(/^sha256:/) });
    await eventually(async () => expect((await readOutbox(bus)).filter((m) => m.customerId === customerId).map((m) => m.text)).toEqual([edited.text]));
    const trace = await eventually(async () => {
      const t = await warden(["trace", callId, "--wide"], env);
      expect(t.stdout).toContain("ToolCallFinished");
      return t.stdout;
    });
    expect(trace).toMatch(/ToolCallRequested +support-bot +args=.* goal="close the refund ticket" why="it was paid today"/);
    expect(trace).toContain(`editedArgs=${JSON.stringify(edited)}`);

    const other = await warden(["call", "customer.message", "--args", JSON.stringify({ customerId, text: "second" }), "--mode", "plan", "--principal", "support-bot", "--json"], env);
    const cancelled = await warden(["cancel", other.doc["callId"] as string, "--as", "support-bot", "--reason", "sent already", "--json"], env);
    expect(cancelled.code).toBe(0);
    expect(cancelled.doc).toMatchObject({ ok: true, by: "support-bot" });
    const late = await warden(["approve", other.doc["approvalId"] as string, "--as", approver, "--args-hash", "sha256:" + "0".repeat(64)], env);
    expect(late.code).toBe(1);
    expect(late.stdout).toMatch(/refused: ALREADY_DECIDED: the call was cancelled by support-bot at /);
  });

  it("grants for the session with constraints: a later matching call runs without asking, sessions lists it, revoke --session ends it", async () => {
    // ticket.fill: the write a model may propose in the demo policy, so each call waits for a person
    const ticketId = `T-${newId()}`;
    const fill = (summary: string, id = ticketId, wait = false) =>
      warden(["call", "ticket.fill", "--args", JSON.stringify({ ticketId: id, fields: { summary } }), "--mode", "llm", "--scope", "ticket_page", "--principal", "support-bot", ...(wait ? ["--wait"] : []), "--json"], env);
    const submit = (summary: string, id = ticketId) => fill(summary, id);
    const first = await submit("first");
    expect(first.doc, JSON.stringify(first.doc)).toMatchObject({ status: "awaiting_approval" });
    const approvalId = first.doc["approvalId"] as string;
    const firstCallId = first.doc["callId"] as string;
    await eventually(async () => expect((await warden(["approvals", "--as", approver], env)).stdout).toContain(approvalId));
    const bad = await warden(["approve", approvalId, "--as", approver, "--session", "ten minutes"], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--session takes a duration such as 90s, 30m or 1h/);
    const granted = await warden(["approve", approvalId, "--as", approver, "--session", "10m", "--session-args", JSON.stringify({ ticketId: { equals: ticketId } })], env);
    expect(granted.code).toBe(0);
    expect(granted.stdout).toMatch(new RegExp(`for the session until \\S+ \\(revoke: warden revoke ${firstCallId} --session --as ${approver}\\)`));

    const listed = await warden(["sessions", "--as", approver], env);
    expect(listed.stdout).toMatch(new RegExp(`session ${firstCallId} +by ${approver}, until `));
    expect(listed.stdout).toContain(`covers  support-bot (mode llm) calling ticket.fill@1.2.0 with ticketId = "${ticketId}"`);

    const second = await fill("second", ticketId, true);
    expect(second.doc).toMatchObject({ ok: true, status: "succeeded", data: { draft: { summary: "second" } } });
    const trace = await warden(["trace", second.doc["callId"] as string, "--wide"], env);
    expect(trace.stdout).toMatch(new RegExp(`ApprovalGranted +${approver} +session="by the session grant of call ${firstCallId}"`));
    const elsewhere = await submit("another ticket", `T-${newId()}`);
    expect(elsewhere.doc).toMatchObject({ status: "awaiting_approval" });

    const revoked = await warden(["revoke", firstCallId, "--session", "--as", approver, "--reason", "done", "--json"], env);
    expect(revoked.doc).toMatchObject({ ok: true, callId: firstCallId, by: approver });
    expect((await warden(["sessions", "--as", approver], env)).stdout).toMatch(/no session grants in force/);
    expect((await submit("after revoke")).doc).toMatchObject({ status: "awaiting_approval" });
  });

  it("waits through a denial with --wait and reports the approver's reason", async () => {
    const customerId = `cust-${newId()}`;
    const args = JSON.stringify({ customerId, text: "hello" });
    const waiting = warden(["call", "customer.message", "--args", args, "--mode", "plan", "--principal", "support-bot", "--wait", "--json"], env);
    const approvalId = await eventually(async () => {
      const list = await warden(["approvals", "--as", approver, "--json"], env);
      const found = (list.doc["approvals"] as { approvalId: string; argsPreview: string }[]).find((a) => a.argsPreview.includes(customerId));
      if (!found) throw new Error("not pending yet");
      return found.approvalId;
    });
    const denied = await warden(["deny", approvalId, "--as", approver, "--reason", "wrong customer", "--json"], env);
    expect(denied.doc).toMatchObject({ ok: true, decision: "deny" });
    const r = await waiting;
    expect(r.code).toBe(1);
    expect(r.doc).toMatchObject({ ok: false, status: "denied", error: { code: "APPROVAL_DENIED" } });
    expect((r.doc["error"] as { message: string }).message).toContain("wrong customer");
  });

  it("refuses a decision on an approval that is not pending", async () => {
    const r = await warden(["approve", "no-such-approval", "--as", approver, "--json"], env);
    expect(r.code).toBe(1);
    expect(r.doc).toMatchObject({ ok: false, refusal: "UNKNOWN_APPROVAL", error: { code: "NOT_FOUND" } });
  });

  it("never acts as an identity WARDEN_HOME holds no credentials for", async () => {
    const r = await warden(["approve", "no-such-approval", "--as", "mallory", "--json"], env);
    expect(r.code).toBe(1);
    expect(r.doc).toMatchObject({ ok: false, error: { code: "NOT_FOUND" } });
    expect((r.doc["error"] as { message: string }).message).toContain("no identity named \"mallory\"");
    const call = await warden(["call", "kb.search", "--args", '{"query":"x"}', "--principal", "mallory", "--json"], env);
    expect(call.code).toBe(1);
    expect(call.doc).toMatchObject({ ok: false, error: { code: "NOT_FOUND" } });
  });

  it("refuses mode human (the CLI's default) to a principal the policy does not name as a person", async () => {
    const r = await warden(["call", "kb.search", "--args", '{"query":"refund"}', "--principal", "support-bot", "--json"], env);
    expect(r.code).toBe(1);
    expect(r.doc).toMatchObject({ ok: false, status: "rejected", error: { code: "POLICY_DENIED" } });
    expect((r.doc["error"] as { message: string }).message).toMatch(/mode human needs a person/);
  });

  it("disables and re-enables a tool", async () => {
    const off = await warden(["tools", "disable", "kb.reindex", "--json"], env);
    expect(off.code).toBe(0);
    expect(off.doc["tools"]).toContainEqual(expect.objectContaining({ name: "kb.reindex", status: "disabled" }));
    // dana is the person the policy grants kbAdmin, so only the tool's status stands in the way
    const call = await warden(["call", "kb.reindex", "--principal", "dana", "--flags", "kbAdmin=true", "--json"], env);
    expect(call.doc).toMatchObject({ status: "rejected", error: { code: "TOOL_DISABLED" } });
    const on = await warden(["tools", "enable", "kb.reindex", "--json"], env);
    expect(on.doc["tools"]).toContainEqual(expect.objectContaining({ name: "kb.reindex", status: "enabled" }));
  });

  it("stores a YAML policy document and shows it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "warden-cli-"));
    try {
      const version = `test-${newId()}`;
      const file = join(dir, "policy.yaml");
      writeFileSync(file, toYaml({ ...PolicyDocumentSchema.parse(supportDeskPolicy), version }));
      const set = await warden(["policy", "set", file, "--yes", "--json"], env);
      expect(set.code).toBe(0);
      expect(set.doc).toMatchObject({ ok: true, version });
      const show = await warden(["policy", "show", "--json"], env);
      expect(show.doc).toMatchObject({ stored: true, document: { version } });
      const bad = join(dir, "bad.yaml");
      writeFileSync(bad, "version: x\nrules: [{ id: r1, effect: maybe }]\n");
      const refused = await warden(["policy", "set", bad, "--yes", "--json"], env);
      expect(refused.code).toBe(1);
      expect(refused.doc).toMatchObject({ ok: false, error: { code: "INVALID_REQUEST" } });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("exits 2 with one line when NATS cannot be reached", async () => {
    const url = `nats://127.0.0.1:${await freePort()}`;
    // the home names identities, but its server is not where NATS_URL points
    const json = await warden(["approvals", "--as", approver, "--json"], { ...env, NATS_URL: url });
    expect(json.code).toBe(2);
    expect(json.doc).toMatchObject({ ok: false, error: { code: "UNAVAILABLE" } });
    const text = await warden(["call", "kb.search", "--args", "{}", "--principal", "support-bot"], { ...env, NATS_URL: url });
    expect(text.code).toBe(2);
    expect(text.stderr.trim().split("\n")).toHaveLength(1);
    expect(text.stderr).toContain(url);
  });

  it("adds the skills of WARDEN_SKILLS_DIR with `up` and runs their scripts in the adapters", { timeout: 180_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "warden-up-skills-"));
    const home = join(dir, "home");
    const skills = resolve(dirname(fileURLToPath(import.meta.url)), "../../services/adapters/examples/skills");
    const child = spawn(process.execPath, [MAIN, "up", "--nats-port", "0", "--json"], { cwd: dir, env: { ...cleanEnv(), WARDEN_HOME: home, LOG_LEVEL: "silent", WARDEN_SKILLS_DIR: skills } });
    try {
      let out = "";
      child.stdout.on("data", (c: Buffer) => (out += c.toString()));
      const summary = await eventually(() => JSON.parse(out) as { ok: boolean; services: string[]; tools: string[]; identities: string[] }, 60_000, 100);
      expect(summary).toMatchObject({ ok: true, tools: expect.arrayContaining(["skill-refund-check.window"]), services: expect.arrayContaining(["adapters"]) });
      const upEnv = { WARDEN_HOME: home, LOG_LEVEL: "silent" };
      const listed = await warden(["skills", "list", "--json"], upEnv);
      expect(listed.doc).toMatchObject({ skills: [{ name: "refund-check", version: "1.0.0", tools: [{ name: "skill-refund-check.window", grade: "read" }] }] });
      expect((await warden(["principal", "add", "skill-bot", "--kind", "agent"], upEnv)).code).toBe(0);
      const r = await warden(["call", "skill-refund-check.window", "--args", '{"purchased":"2025-01-01","today":"2025-03-01"}', "--mode", "plan", "--principal", "skill-bot", "--json"], upEnv);
      expect(r.doc, JSON.stringify(r.doc)).toMatchObject({ ok: true, status: "succeeded", data: { stdout: { days: 59, inside: false } } });
      const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)));
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("brings everything up with `up --demo`, serves its health and metrics with WARDEN_HEALTH_PORT, and drains on SIGTERM", { timeout: 180_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "warden-up-"));
    const home = join(dir, "home");
    // no model endpoint: the demo subagent must then answer with what to set
    const { OPENAI_BASE_URL: _url, OPENAI_API_KEY: _key, ...parentEnv } = cleanEnv();
    const child = spawn(process.execPath, [MAIN, "up", "--demo", "--nats-port", "0", "--json"], {
      cwd: dir,
      env: { ...parentEnv, WARDEN_HOME: home, LOG_LEVEL: "silent", WARDEN_HEALTH_PORT: "0" },
    });
    try {
      let out = "";
      child.stdout.on("data", (c: Buffer) => (out += c.toString()));
      const summary = await eventually(
        () => JSON.parse(out) as { ok: boolean; url: string; home: string; services: string[]; tools: string[]; skills: string[]; identities: string[]; health: string },
        60_000,
        100,
      );
      expect(summary.ok).toBe(true);
      expect(summary.home).toBe(home);
      expect(summary.services).toEqual(expect.arrayContaining(["registry", "policy", "approver", "support-desk", "subagent"]));
      expect(summary.tools).toContain("customer.message");
      expect(summary.tools).toContain("agent.triage");
      // the demo's skill, loaded with no WARDEN_SKILLS_DIR: its script runs in the adapters
      expect(summary).toMatchObject({ skills: ["refund-check"], services: expect.arrayContaining(["adapters"]), tools: expect.arrayContaining(["skill-refund-check.window"]) });
      expect(summary.identities).toEqual(expect.arrayContaining(["admin", "alice", "support-bot"]));
      // another terminal needs only the home: the URL and the credentials are in its env.json
      const upEnv = { WARDEN_HOME: home, LOG_LEVEL: "silent" };
      const r = await warden(["call", "kb.search", "--args", '{"query":"refund"}', "--mode", "llm", "--principal", "support-bot", "--json"], upEnv);
      expect(r.doc).toMatchObject({ ok: true, status: "succeeded" });
      expect((await fetch(`${summary.health}/readyz`)).status).toBe(200);
      const metrics = await (await fetch(`${summary.health}/metrics`)).text();
      expect(metrics).toMatch(/warden_events_written_total\{type="ToolCallFinished",tool="kb.search",result="ok",service="warden-up"\} [1-9]/);
      expect(metrics).toMatch(/warden_approvals_pending\{service="warden-up"\} \d+/);
      const triage = await warden(["call", "agent.triage", "--args", '{"task":"look into session 1"}', "--principal", "alice", "--json"], upEnv);
      expect(triage.doc).toMatchObject({ ok: false, status: "failed", error: { code: "UNAVAILABLE" } });
      expect(JSON.stringify(triage.doc)).toMatch(/OPENAI_BASE_URL.*OPENAI_API_KEY/);
      const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)));
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
