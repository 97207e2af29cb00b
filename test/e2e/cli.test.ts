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
import { APPROVED_CALL_EVENT_TYPES, callEvents, eventually } from "@warden/testing";
import { outJson, runWardenAt, spawnWarden, startWardenUp, type CliRan } from "../support/cli.js";
import { startTestWarden, type TestWarden } from "../support/warden.js";

// the person `warden up --demo` suggests approving as: the demo policy's human who approves sends
const approver = "alice";

describe("the warden CLI against a real nats-server and the services", { timeout: 90_000 }, () => {
  let w: TestWarden;
  let bus: Bus;
  /** A command run in this process (no node start-up each); `up` and what NATS unreachable prints run a process. */
  let warden: (...args: string[]) => Promise<CliRan>;

  beforeAll(async () => {
    // every service as its own identity, the support-desk demo and its policy, as `warden up --demo` runs them
    w = await startTestWarden({ demo: true });
    bus = w.bus;
    // the people and the agent the commands act as: their credentials in WARDEN_HOME, as `warden up --demo` mints them
    for (const name of [approver, "dana"]) await w.nats.home.addIdentity({ kind: "human", name });
    await w.nats.home.addIdentity({ kind: "agent", name: "support-bot" });
    // commands find the server and every identity's credentials in WARDEN_HOME/env.json
    warden = (...args) => runWardenAt({ home: w.nats.home.dir }, ...args);
  }, 60_000);

  afterAll(async () => {
    await w.stop();
  });

  it("lists an llm caller's tools without send tools, and explains why they are hidden", async () => {
    const r = await warden("tools", "--mode", "llm", "--principal", "support-bot", "--explain", "--format", "openai", "--json");
    expect(r.code).toBe(0);
    const view = outJson(r)["view"] as { tools: { name: string }[]; hidden: { name: string; reason: string }[] };
    expect(view.tools.map((t) => t.name)).toContain("kb.search");
    expect(view.tools.map((t) => t.name)).not.toContain("customer.message");
    // never listed, and --explain says what a model's call of it does: it waits for a person
    expect(view.hidden).toContainEqual(expect.objectContaining({ name: "customer.message", reason: "send_never_listed_for_llm", detail: expect.stringMatching(/waits for a person to confirm it \(default\.send\.llm\)/) }));
    expect(outJson(r)["formatted"]).toContainEqual(expect.objectContaining({ type: "function", function: expect.objectContaining({ name: "kb__search" }) }));
  });

  it("shows each tool's permission level and action type, in the table and in --json", async () => {
    const json = await warden("tools", "--principal", approver, "--json");
    expect(json.code, json.err).toBe(0);
    const entries = (outJson(json)["view"] as { tools: { name: string; level: string; actionType?: string }[] }).tools;
    const shown = Object.fromEntries(entries.map((t) => [t.name, [t.level, t.actionType ?? "-"]]));
    expect(shown).toMatchObject({
      "kb.search": ["L0", "search"],
      "ticket.submit": ["L2", "write"],
      "ticket.withdraw": ["L2", "patch"],
      "customer.message": ["L4", "external_send"],
    });
    const table = await warden("tools", "--principal", approver);
    expect(table.code, table.err).toBe(0);
    expect(table.out).toMatch(/^NAME\s+WIRE NAME\s+VERSION\s+GRADE\s+LEVEL\s+ACTION\s+ON CALL\s+ACTS AS\s+WHY$/m);
    expect(table.out).toMatch(/^customer\.message\s+\S+\s+1\.2\.0\s+send\s+L4\s+external_send\s+require_approval\s/m);
    expect(table.out).toMatch(/^kb\.search\s+\S+\s+1\.1\.0\s+read\s+L0\s+search\s+allow\s/m);
  });

  it("runs a read call, prints its result as one JSON document, and records the check of its output schema", async () => {
    const r = await warden("call", "kb.search", "--args", '{"query":"refund"}', "--mode", "llm", "--principal", "support-bot", "--json");
    expect(r.code).toBe(0);
    expect(outJson(r)).toMatchObject({ ok: true, status: "succeeded" });
    expect(typeof outJson(r)["callId"]).toBe("string");
    // kb.search declares an outputSchema: the executor records what the check found, and trace shows it
    const validated = (await callEvents(bus, outJson(r)["callId"] as string)).find((e) => e.type === "ToolResultValidated");
    expect(validated?.type === "ToolResultValidated" && validated.data).toMatchObject({ ok: true, checks: [{ check: "outputSchema", ok: true }] });
    const trace = await warden("trace", outJson(r)["callId"] as string);
    expect(trace.out).toMatch(/ToolResultValidated/);
  });

  it("exits 1 with a structured error for a hallucinated tool", async () => {
    // a person (mode human, the CLI's default) asks for a tool no one registered
    const r = await warden("call", "kb.searchEverything", "--args", "{}", "--principal", approver, "--json");
    expect(r.code).toBe(1);
    expect(outJson(r)).toMatchObject({ ok: false, status: "rejected", error: { code: "UNKNOWN_TOOL" }, recorded: false });
  });

  it("holds a send for approval, lists it, and runs it once a human approves", async () => {
    const customerId = `cust-${newId()}`;
    const args = JSON.stringify({ customerId, text: "Your refund is on its way" });
    const call = await warden("call", "customer.message", "--args", args, "--mode", "plan", "--principal", "support-bot", "--json");
    expect(call.code).toBe(3);
    expect(outJson(call)).toMatchObject({ ok: false, status: "awaiting_approval", requiresConfirm: true });
    const approvalId = outJson(call)["approvalId"] as string;
    const callId = outJson(call)["callId"] as string;

    const list = await warden("approvals", "--as", approver, "--json");
    expect(list.code).toBe(0);
    expect(outJson(list)["approvals"]).toContainEqual(expect.objectContaining({ approvalId, callId, tool: "customer.message" }));
    expect(JSON.stringify(await readOutbox(bus))).not.toContain(customerId);

    const granted = await warden("approve", approvalId, "--as", approver, "--reason", "checked", "--json");
    expect(granted.code).toBe(0);
    expect(outJson(granted)).toMatchObject({ ok: true, approvalId, callId, decision: "grant" });

    await eventually(async () => expect(JSON.stringify(await readOutbox(bus))).toContain(customerId));
    const trace = await eventually(async () => {
      const t = await warden("trace", callId, "--json");
      const types = (outJson(t)["events"] as { type: string }[]).map((e) => e.type);
      expect(types.at(-1)).toBe("ToolCallFinished");
      return types;
    });
    expect(trace).toEqual(APPROVED_CALL_EVENT_TYPES);
    const text = await warden("trace", callId, "--wide");
    expect(text.out).toMatch(new RegExp(`ApprovalGranted +${approver} +approval=${approvalId} approver=${approver} argsHash=sha256:[0-9a-f]{64}`));
  });

  it("prints the approval card with the call's intent, grants edited args, and cancels a call before it starts", async () => {
    const customerId = `cust-${newId()}`;
    const args = JSON.stringify({ customerId, text: "ur refund is done" });
    const call = await warden("call", "customer.message", "--args", args, "--mode", "plan", "--principal", "support-bot", "--goal", "close the refund ticket", "--why", "it was paid today", "--json");
    const approvalId = outJson(call)["approvalId"] as string;
    const callId = outJson(call)["callId"] as string;
    const cards = await warden("approvals", "--as", approver);
    const card = cards.out.split("\n\n").find((c) => c.includes(approvalId))!;
    expect(card).toMatch(/tool +Send a message to a customer \(customer\.message\), grade send, openWorld/);
    expect(card).toMatch(/asked by +support-bot \(support-bot, mode plan\)/);
    expect(card).toMatch(/goal +close the refund ticket\n +why +it was paid today/);
    expect(card).toMatch(/decides +.*alice/);

    const edited = { customerId, text: "Your refund has been paid." };
    const granted = await warden("approve", approvalId, "--as", approver, "--args", JSON.stringify(edited), "--json");
    expect(outJson(granted)).toMatchObject({ ok: true, decision: "grant", grantedArgsHash: expect.stringMatching(/^sha256:/) });
    await eventually(async () => expect((await readOutbox(bus)).filter((m) => m.customerId === customerId).map((m) => m.text)).toEqual([edited.text]));
    const trace = await eventually(async () => {
      const t = await warden("trace", callId, "--wide");
      expect(t.out).toContain("ToolCallFinished");
      return t.out;
    });
    expect(trace).toMatch(/ToolCallRequested +support-bot +args=.* goal="close the refund ticket" why="it was paid today"/);
    expect(trace).toContain(`editedArgs=${JSON.stringify(edited)}`);

    const other = await warden("call", "customer.message", "--args", JSON.stringify({ customerId, text: "second" }), "--mode", "plan", "--principal", "support-bot", "--json");
    const cancelled = await warden("cancel", outJson(other)["callId"] as string, "--as", "support-bot", "--reason", "sent already", "--json");
    expect(cancelled.code).toBe(0);
    expect(outJson(cancelled)).toMatchObject({ ok: true, by: "support-bot" });
    const late = await warden("approve", outJson(other)["approvalId"] as string, "--as", approver, "--args-hash", "sha256:" + "0".repeat(64));
    expect(late.code).toBe(1);
    expect(late.out).toMatch(/refused: ALREADY_DECIDED: the call was cancelled by support-bot at /);
  });

  it("grants for the session with constraints: a later matching call runs without asking, sessions lists it, revoke --session ends it", async () => {
    // ticket.fill: the write a model may propose in the demo policy, so each call waits for a person
    const ticketId = `T-${newId()}`;
    const fill = (summary: string, id = ticketId, wait = false) =>
      warden("call", "ticket.fill", "--args", JSON.stringify({ ticketId: id, fields: { summary } }), "--mode", "llm", "--scope", "ticket_page", "--principal", "support-bot", ...(wait ? ["--wait"] : []), "--json");
    const submit = (summary: string, id = ticketId) => fill(summary, id);
    const first = await submit("first");
    expect(outJson(first), first.out).toMatchObject({ status: "awaiting_approval" });
    const approvalId = outJson(first)["approvalId"] as string;
    const firstCallId = outJson(first)["callId"] as string;
    await eventually(async () => expect((await warden("approvals", "--as", approver)).out).toContain(approvalId));
    const bad = await warden("approve", approvalId, "--as", approver, "--session", "ten minutes");
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/--session takes a duration such as 90s, 30m or 1h/);
    const granted = await warden("approve", approvalId, "--as", approver, "--session", "10m", "--session-args", JSON.stringify({ ticketId: { equals: ticketId } }));
    expect(granted.code).toBe(0);
    expect(granted.out).toMatch(new RegExp(`for the session until \\S+ \\(revoke: warden revoke ${firstCallId} --session --as ${approver}\\)`));

    const listed = await warden("sessions", "--as", approver);
    expect(listed.out).toMatch(new RegExp(`session ${firstCallId} +by ${approver}, until `));
    expect(listed.out).toContain(`covers  support-bot (mode llm) calling ticket.fill@1.2.0 with ticketId = "${ticketId}"`);

    const second = await fill("second", ticketId, true);
    expect(outJson(second)).toMatchObject({ ok: true, status: "succeeded", data: { draft: { summary: "second" } } });
    const trace = await warden("trace", outJson(second)["callId"] as string, "--wide");
    expect(trace.out).toMatch(new RegExp(`ApprovalGranted +${approver} +session="by the session grant of call ${firstCallId}"`));
    const elsewhere = await submit("another ticket", `T-${newId()}`);
    expect(outJson(elsewhere)).toMatchObject({ status: "awaiting_approval" });

    const revoked = await warden("revoke", firstCallId, "--session", "--as", approver, "--reason", "done", "--json");
    expect(outJson(revoked)).toMatchObject({ ok: true, callId: firstCallId, by: approver });
    expect((await warden("sessions", "--as", approver)).out).toMatch(/no session grants in force/);
    expect(outJson(await submit("after revoke"))).toMatchObject({ status: "awaiting_approval" });
  });

  it("waits through a denial with --wait and reports the approver's reason", async () => {
    const customerId = `cust-${newId()}`;
    const args = JSON.stringify({ customerId, text: "hello" });
    const waiting = warden("call", "customer.message", "--args", args, "--mode", "plan", "--principal", "support-bot", "--wait", "--json");
    const approvalId = await eventually(async () => {
      const list = await warden("approvals", "--as", approver, "--json");
      const found = (outJson(list)["approvals"] as { approvalId: string; argsPreview: string }[]).find((a) => a.argsPreview.includes(customerId));
      if (!found) throw new Error("not pending yet");
      return found.approvalId;
    });
    const denied = await warden("deny", approvalId, "--as", approver, "--reason", "wrong customer", "--json");
    expect(outJson(denied)).toMatchObject({ ok: true, decision: "deny" });
    const r = await waiting;
    expect(r.code).toBe(1);
    expect(outJson(r)).toMatchObject({ ok: false, status: "denied", error: { code: "APPROVAL_DENIED" } });
    expect((outJson(r)["error"] as { message: string }).message).toContain("wrong customer");
  });

  it("refuses a decision on an approval that is not pending", async () => {
    const r = await warden("approve", "no-such-approval", "--as", approver, "--json");
    expect(r.code).toBe(1);
    expect(outJson(r)).toMatchObject({ ok: false, refusal: "UNKNOWN_APPROVAL", error: { code: "NOT_FOUND" } });
  });

  it("never acts as an identity WARDEN_HOME holds no credentials for", async () => {
    const r = await warden("approve", "no-such-approval", "--as", "mallory", "--json");
    expect(r.code).toBe(1);
    expect(outJson(r)).toMatchObject({ ok: false, error: { code: "NOT_FOUND" } });
    expect((outJson(r)["error"] as { message: string }).message).toContain("no identity named \"mallory\"");
    const call = await warden("call", "kb.search", "--args", '{"query":"x"}', "--principal", "mallory", "--json");
    expect(call.code).toBe(1);
    expect(outJson(call)).toMatchObject({ ok: false, error: { code: "NOT_FOUND" } });
  });

  it("refuses mode human (the CLI's default) to a principal the policy does not name as a person", async () => {
    const r = await warden("call", "kb.search", "--args", '{"query":"refund"}', "--principal", "support-bot", "--json");
    expect(r.code).toBe(1);
    expect(outJson(r)).toMatchObject({ ok: false, status: "rejected", error: { code: "POLICY_DENIED" } });
    expect((outJson(r)["error"] as { message: string }).message).toMatch(/mode human needs a person/);
  });

  it("disables and re-enables a tool", async () => {
    const off = await warden("tools", "disable", "kb.reindex", "--json");
    expect(off.code).toBe(0);
    expect(outJson(off)["tools"]).toContainEqual(expect.objectContaining({ name: "kb.reindex", status: "disabled" }));
    // dana is the person the policy grants kbAdmin, so only the tool's status stands in the way
    const call = await warden("call", "kb.reindex", "--principal", "dana", "--flags", "kbAdmin=true", "--json");
    expect(outJson(call)).toMatchObject({ status: "rejected", error: { code: "TOOL_DISABLED" } });
    const on = await warden("tools", "enable", "kb.reindex", "--json");
    expect(outJson(on)["tools"]).toContainEqual(expect.objectContaining({ name: "kb.reindex", status: "enabled" }));
  });

  it("stores a YAML policy document and shows it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "warden-cli-"));
    try {
      const version = `test-${newId()}`;
      const file = join(dir, "policy.yaml");
      writeFileSync(file, toYaml({ ...PolicyDocumentSchema.parse(supportDeskPolicy), version }));
      const set = await warden("policy", "set", file, "--yes", "--json");
      expect(set.code).toBe(0);
      expect(outJson(set)).toMatchObject({ ok: true, version });
      const show = await warden("policy", "show", "--json");
      expect(outJson(show)).toMatchObject({ stored: true, document: { version } });
      const bad = join(dir, "bad.yaml");
      writeFileSync(bad, "version: x\nrules: [{ id: r1, effect: maybe }]\n");
      const refused = await warden("policy", "set", bad, "--yes", "--json");
      expect(refused.code).toBe(1);
      expect(outJson(refused)).toMatchObject({ ok: false, error: { code: "INVALID_REQUEST" } });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("exits 2 with one line when NATS cannot be reached", async () => {
    const url = `nats://127.0.0.1:${await freePort()}`;
    // the home names identities, but its server is not where NATS_URL points
    // the process's own exit code and stderr: nothing else (a client library, node) may print there
    const unreachable = { home: w.nats.home.dir, env: { NATS_URL: url } };
    const json = await spawnWarden(unreachable, "approvals", "--as", approver, "--json");
    expect(json.code).toBe(2);
    expect(outJson(json)).toMatchObject({ ok: false, error: { code: "UNAVAILABLE" } });
    const text = await spawnWarden(unreachable, "call", "kb.search", "--args", "{}", "--principal", "support-bot");
    expect(text.code).toBe(2);
    expect(text.err.trim().split("\n")).toHaveLength(1);
    expect(text.err).toContain(url);
  });

  // `up` is a long-running process stopped by a signal: these two start it as one
  it("adds the skills of WARDEN_SKILLS_DIR with `up` and runs their scripts in the adapters", { timeout: 180_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "warden-up-skills-"));
    const home = join(dir, "home");
    const skills = resolve(dirname(fileURLToPath(import.meta.url)), "../../services/adapters/examples/skills");
    const up = await startWardenUp({ home, cwd: dir, env: { WARDEN_SKILLS_DIR: skills } }, "--nats-port", "0");
    try {
      expect(up.summary).toMatchObject({ ok: true, tools: expect.arrayContaining(["skill-refund-check.window"]), services: expect.arrayContaining(["adapters"]) });
      const listed = await runWardenAt({ home }, "skills", "list", "--json");
      expect(outJson(listed)).toMatchObject({ skills: [{ name: "refund-check", version: "1.0.0", tools: [{ name: "skill-refund-check.window", grade: "read" }] }] });
      expect((await runWardenAt({ home }, "principal", "add", "skill-bot", "--kind", "agent")).code).toBe(0);
      const r = await runWardenAt({ home }, "call", "skill-refund-check.window", "--args", '{"purchased":"2025-01-01","today":"2025-03-01"}', "--mode", "plan", "--principal", "skill-bot", "--json");
      expect(outJson(r), r.out).toMatchObject({ ok: true, status: "succeeded", data: { stdout: { days: 59, inside: false } } });
      expect(await up.stop()).toBe(0);
    } finally {
      up.kill();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("brings everything up with `up --demo`, serves its health and metrics with WARDEN_HEALTH_PORT, and drains on SIGTERM", { timeout: 180_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "warden-up-"));
    const home = join(dir, "home");
    // no model endpoint: the demo subagent must then answer with what to set
    const noModel = { OPENAI_BASE_URL: undefined, OPENAI_API_KEY: undefined };
    const up = await startWardenUp({ home, cwd: dir, env: { ...noModel, WARDEN_HEALTH_PORT: "0" } }, "--demo", "--nats-port", "0");
    try {
      const { summary } = up;
      expect(summary.ok).toBe(true);
      expect(summary.home).toBe(home);
      expect(summary.services).toEqual(expect.arrayContaining(["registry", "policy", "approver", "support-desk", "subagent"]));
      expect(summary.tools).toContain("customer.message");
      expect(summary.tools).toContain("agent.triage");
      // the demo's skill, loaded with no WARDEN_SKILLS_DIR: its script runs in the adapters
      expect(summary).toMatchObject({ skills: ["refund-check"], services: expect.arrayContaining(["adapters"]), tools: expect.arrayContaining(["skill-refund-check.window"]) });
      expect(summary.identities).toEqual(expect.arrayContaining(["admin", "alice", "support-bot"]));
      // another terminal needs only the home: the URL and the credentials are in its env.json
      const r = await runWardenAt({ home }, "call", "kb.search", "--args", '{"query":"refund"}', "--mode", "llm", "--principal", "support-bot", "--json");
      expect(outJson(r)).toMatchObject({ ok: true, status: "succeeded" });
      expect((await fetch(`${summary.health}/readyz`)).status).toBe(200);
      const metrics = await (await fetch(`${summary.health}/metrics`)).text();
      expect(metrics).toMatch(/warden_events_written_total\{type="ToolCallFinished",tool="kb.search",result="ok",service="warden-up"\} [1-9]/);
      expect(metrics).toMatch(/warden_approvals_pending\{service="warden-up"\} \d+/);
      const triage = await runWardenAt({ home }, "call", "agent.triage", "--args", '{"task":"look into session 1"}', "--principal", "alice", "--json");
      expect(outJson(triage)).toMatchObject({ ok: false, status: "failed", error: { code: "UNAVAILABLE" } });
      expect(JSON.stringify(outJson(triage))).toMatch(/OPENAI_BASE_URL.*OPENAI_API_KEY/);
      expect(await up.stop()).toBe(0);
    } finally {
      up.kill();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
