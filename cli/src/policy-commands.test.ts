import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolDescriptorInput } from "@warden/contracts/descriptor";
import type { CommandIo } from "./io.js";
import { runCli } from "./run-cli.js";

interface Ran {
  readonly code: number;
  readonly out: string;
  readonly err: string;
  /** stdout as one JSON document (with --json). */
  json(): Record<string, unknown>;
}

const sideEffects = "Use when the change is wanted; it changes what others see later.";
const TOOLS: ToolDescriptorInput[] = [
  { name: "kb.search", version: "1.0.0", title: "Search", description: "Use when the customer asks a question.", grade: "read", inputSchema: { type: "object", properties: { query: { type: "string" } }, required: ["query"], additionalProperties: false } },
  { name: "kb.reindex", version: "1.0.0", title: "Reindex", description: "Use when the articles changed.", grade: "read", featureFlag: "kbAdmin", inputSchema: { type: "object" } },
  { name: "ticket.fill", version: "1.0.0", title: "Fill", description: sideEffects, grade: "write", preview: true, scopes: ["ticket_page"], inputSchema: { type: "object" } },
  { name: "customer.message", version: "1.0.0", title: "Message", description: sideEffects, grade: "send", openWorld: true, inputSchema: { type: "object" } },
];

const POLICY = [
  "version: cli-1",
  "principals:",
  "  alice: { kind: human, approves: [write, send] }",
  "  dana: { kind: human, flags: { kbAdmin: true } }",
  "  support-bot: { kind: agent }",
  "llm: { showWrite: [ticket.fill] }",
  "rules:",
  "  - id: no-reindex-by-plan",
  "    match: { tool: kb.reindex, mode: plan }",
  "    effect: deny",
  "    reason: reindex by hand only",
].join("\n");

describe("warden policy check and decide, with no Warden to talk to", () => {
  let dir: string;
  const file = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return name;
  };

  const warden = async (...argv: string[]): Promise<Ran> => {
    const out: string[] = [];
    const err: string[] = [];
    const io: CommandIo = {
      // no home and no server: these commands must not need one
      env: { WARDEN_HOME: join(dir, "no-home") },
      cwd: dir,
      out: (t) => out.push(t),
      err: (t) => err.push(t),
      stopSignal: () => new Promise(() => undefined),
    };
    const code = await runCli(argv, io);
    return { code, out: out.join("\n"), err: err.join("\n"), json: () => JSON.parse(out.join("\n")) as Record<string, unknown> };
  };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "warden-policy-cli-"));
    file("policy.yaml", POLICY);
    file("tools.json", JSON.stringify({ tools: TOOLS.map((descriptor) => ({ descriptor, descriptorHash: "sha256:x", status: "enabled", registeredAt: "2030-01-01T00:00:00.000Z", statusChangedAt: "2030-01-01T00:00:00.000Z" })) }));
    file("descriptors.yaml", JSON.stringify(TOOLS));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("reports a typo at file:line:column and exits 1", async () => {
    const typo = file("typo.yaml", POLICY.replace("    effect: deny", "    efect: deny"));
    const r = await warden("policy", "check", typo, "--offline");
    expect(r.code).toBe(1);
    expect(r.out).toContain("typo.yaml:8:5: error: missing required field effect [missing_field]");
    expect(r.out).toContain("typo.yaml:10:5: error: unknown field efect; did you mean effect? [unknown_field]");
    const j = await warden("policy", "check", typo, "--offline", "--json");
    expect(j.code).toBe(1);
    expect(j.json()).toMatchObject({ ok: false, file: "typo.yaml", errors: [{ line: 8, column: 5 }, { line: 10, column: 5, code: "unknown_field" }] });
  });

  it("says that --offline leaves tool names unchecked, and exits 0 on warnings unless --strict", async () => {
    const clean = await warden("policy", "check", "policy.yaml", "--offline");
    expect(clean.code).toBe(0);
    expect(clean.out).toContain("tool names not checked (--offline)");
    const warned = file("warned.yaml", `${POLICY}\n  - id: crm\n    match: { tool: crm.export }\n    effect: deny\n    reason: x\n`);
    expect((await warden("policy", "check", warned, "--offline")).code).toBe(0);
    const strict = await warden("policy", "check", warned, "--tools", "tools.json", "--strict", "--json");
    expect(strict.code).toBe(1);
    expect(strict.json()).toMatchObject({
      ok: false,
      warnings: [expect.objectContaining({ code: "tool.unknown", line: 13, column: 20 })],
      checked: { tools: { source: "file", file: "tools.json", count: 4 } },
    });
  });

  it("decides one request from a tools file: decision, rules, reason and the caller's ToolView", async () => {
    const r = await warden("policy", "decide", "policy.yaml", "--tools", "descriptors.yaml", "--json", "--request", JSON.stringify({ tool: "ticket__fill", principal: "support-bot", mode: "llm", scope: "ticket_page" }));
    expect(r.code).toBe(0);
    const doc = r.json();
    expect(doc).toMatchObject({ decision: "require_approval", ruleIds: ["default.write.llm"], policyVersion: "cli-1", tool: { name: "ticket.fill", version: "1.0.0" } });
    const view = doc["toolView"] as { tools: { name: string }[]; hidden: { name: string; reason: string }[] };
    expect(view.tools.map((t) => t.name)).toEqual(["kb.search", "ticket.fill"]);
    expect(view.hidden).toContainEqual(expect.objectContaining({ name: "customer.message", reason: "send_never_listed_for_llm" }));
    const text = await warden("policy", "decide", "policy.yaml", "--tools", "tools.json", "--request", JSON.stringify({ tool: "kb.reindex", principal: "dana", mode: "plan" }));
    expect(text.out).toMatch(/^deny {2}kb\.reindex@1\.0\.0 \(read\) for dana in plan mode\n {2}rules: {2}no-reindex-by-plan\n {2}reason: reindex by hand only/);
  });

  it("says how many people a waiting call needs, and why, its condition read with the request's args", async () => {
    const quorum = file("quorum.yaml", `${POLICY.replace("version: cli-1", "version: cli-q")}\napprovalQuorum:\n  - { id: long-messages, tool: customer.message, when: { arg: chars, gt: 500 }, approvers: 2 }\n`);
    const ask = (chars: number) => warden("policy", "decide", quorum, "--tools", "tools.json", "--request", JSON.stringify({ tool: "customer.message", principal: "support-bot", mode: "plan", args: { chars } }));
    expect((await ask(900)).out).toContain("  quorum: 2 distinct approvers [long-messages: 2 distinct approvers for tool customer.message, when chars > 500 (chars is 900: chars > 500)]");
    expect((await ask(100)).out).toContain("  quorum: 1 distinct approver [default.quorum: one person decides (no approvalQuorum entry matches)]");
  });

  it("reads the request from a file, or as a recorded ToolCallRequested event", async () => {
    const event = { v: 1, type: "ToolCallRequested", eventId: "e1", callId: "c1", domain: "kb", tool: "kb.search", principal: "support-bot", mode: "human", ts: "2030-01-01T00:00:00.000Z", causationId: null, causeHash: null, correlationId: "r1", data: { args: { query: "x" }, scope: null, flags: {} } };
    file("request.json", JSON.stringify(event));
    const r = await warden("policy", "decide", "policy.yaml", "--tools", "tools.json", "--request", "@request.json", "--json");
    expect(r.json()).toMatchObject({ decision: "deny", ruleIds: ["gate.human_mode_needs_person"], args: { valid: true } });
  });

  it("exits 1 when the registry would refuse the request before policy: unknown tool, invalid args", async () => {
    const unknown = await warden("policy", "decide", "policy.yaml", "--tools", "tools.json", "--request", '{"tool":"kb.serch","principal":"alice","mode":"human"}');
    expect(unknown.code).toBe(1);
    expect(unknown.err).toMatch(/unknown tool "kb.serch"/);
    const args = await warden("policy", "decide", "policy.yaml", "--tools", "tools.json", "--json", "--request", '{"tool":"kb.search","principal":"alice","mode":"human","args":{"q":1}}');
    expect(args.code).toBe(1);
    expect(args.json()).toMatchObject({ decision: "allow", args: { valid: false, errors: expect.arrayContaining([expect.objectContaining({ path: "/query" })]) } });
  });

  it("refuses a ToolView as a tools file: it lacks what policy decides on", async () => {
    const view = file("view.json", JSON.stringify({ view: { tools: [] }, formatted: [] }));
    const r = await warden("policy", "decide", "policy.yaml", "--tools", view, "--request", '{"tool":"kb.search","principal":"alice","mode":"human"}');
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/warden tools list --json/);
  });

  it("checks history conditions: the window's cap and form are errors at their line, unknown tools and args warnings", async () => {
    const rule = (within: string, tool: string, same: string) =>
      `${POLICY}\n  - id: search-after-reindex\n    match: { tool: kb.search }\n    when:\n      history: { scope: run, within: ${within}, calls: { tool: ${tool} }, same: [${same}], absent: true }\n    effect: deny\n    reason: x\n`;
    const long = await warden("policy", "check", file("long.yaml", rule("25h", "kb.reindex", "query")), "--offline");
    expect(long.code).toBe(1);
    expect(long.out).toContain("long.yaml:15:38: error: within 25h is longer than the cap of 24h (86400 s) [invalid_value]");
    const noWindow = await warden("policy", "check", file("nowindow.yaml", rule("1h", "kb.reindex", "query").replace("within: 1h, ", "")), "--offline");
    expect(noWindow.out).toContain("error: missing required field within [missing_field]");
    const typos = await warden("policy", "check", file("typos.yaml", rule("1h", "kb.reindx", "qurey")), "--tools", "tools.json", "--json");
    expect(typos.code).toBe(0);
    const warnings = (typos.json()["warnings"] as { code: string; path: string; message: string }[]).map((w) => [w.code, w.path, w.message]);
    expect(warnings).toContainEqual(["tool.unknown", "rules[1].when.history.calls.tool[0]", expect.stringContaining("did you mean kb.reindex?")]);
    expect(warnings).toContainEqual(["history.arg_unknown", "rules[1].when.history.same[0]", expect.stringContaining("qurey, which none of kb.search takes")]);
  });

  it("decides a history condition from --history, naming the earlier calls it counted; without one says it is not decided", async () => {
    const policy = file("history.yaml", `${POLICY}\n  - id: search-cap\n    match: { tool: kb.search }\n    when:\n      history: { scope: principal, within: 1h, calls: { tool: kb.search }, count: { max: 2 } }\n    effect: deny\n    reason: two searches an hour\n`);
    const earlier = file(
      "earlier.yaml",
      ["- { callId: s1, tool: kb.search, principal: alice, runId: r1, args: { query: a }, at: '2030-01-01T10:00:00.000Z' }", "- { callId: s2, tool: kb.search, principal: alice, runId: r2, at: '2030-01-01T10:10:00.000Z', outcome: pending }"].join("\n"),
    );
    const request = (at: string) => JSON.stringify({ tool: "kb.search", principal: "alice", mode: "human", at });
    const third = await warden("policy", "decide", policy, "--tools", "tools.json", "--history", earlier, "--request", request("2030-01-01T10:30:00.000Z"));
    expect(third.code).toBe(0);
    expect(third.out).toMatch(/^deny {2}kb\.search/);
    expect(third.out).toContain("  history: search-cap holds over principal alice: 2 earlier calls (s1, s2)");
    // an hour after the first, it has left the window
    const later = await warden("policy", "decide", policy, "--tools", "tools.json", "--history", earlier, "--json", "--request", request("2030-01-01T11:00:01.000Z"));
    expect(later.json()).toMatchObject({ decision: "allow", history: [{ ruleId: "search-cap", holds: false, matched: ["s2"], count: 1 }] });
    const none = await warden("policy", "decide", policy, "--tools", "tools.json", "--request", request("2030-01-01T10:30:00.000Z"));
    expect(none.out).toContain("not decided offline: rule search-cap: a history condition over the principal's calls within 1h; give --history FILE");
    const bad = await warden("policy", "decide", policy, "--tools", "tools.json", "--history", file("bad-history.yaml", "- { callId: s1 }"), "--request", request("2030-01-01T10:30:00.000Z"));
    expect(bad.code).toBe(1);
    expect(bad.err).toContain("--history bad-history.yaml: 0.tool:");
  });

  it("refuses an invalid candidate with its first errors at file:line:column", async () => {
    const bad = file("bad.yaml", "version: v1\nrules:\n  - id: a\n    effect: nope\n    reason: x\n");
    const r = await warden("policy", "decide", bad, "--tools", "tools.json", "--request", '{"tool":"kb.search","principal":"alice","mode":"human"}');
    expect(r.code).toBe(1);
    expect(r.err).toContain("bad.yaml:4:13: error:");
  });
});
