import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readEvent } from "@warden/bus";
import { type ToolPolicyChecked } from "@warden/contracts/events";
import { parseToolName } from "@warden/contracts/subjects";
import { type CallMode, type ToolRecord } from "@warden/contracts/descriptor";
import { PolicyDocumentSchema, type PolicyDocumentInput } from "@warden/contracts/policy";
import { supportDeskPolicy } from "@warden/example-support-desk";
import { putPolicyDocument } from "@warden/policy";
import { decideRequest, type DecideRequest } from "@warden/policy-engine";
import { createAgentClient, createRegistryClient, type AgentClient } from "@warden/sdk";
import { eventually } from "@warden/testing";
import { stringify as toYaml } from "yaml";
import { outJson, runWardenAt, spawnWarden, type CliRan, type WardenAt } from "../support/cli.js";
import { startTestWarden, type TestWarden } from "../support/warden.js";

/** Valid args for every demo tool: the registry must let each call through to policy. */
const ARGS: Record<string, unknown> = {
  "kb.search": { query: "refund" },
  "kb.reindex": {},
  "session.fetch": { id: 1 },
  "ticket.fill": { ticketId: "T-1", fields: { subject: "refund" } },
  "ticket.submit": { title: "Refund", body: "please", customerId: "C-1" },
  "ticket.withdraw": { ticketId: "T-1" },
  "customer.message": { customerId: "C-1", text: "Hello" },
  "demo.fail": {},
  "demo.slow": {},
  "demo.big": {},
};

/** Who calls, in which modes: an agent in every mode (human is refused it), people in theirs. */
const CALLERS: readonly { principal: string; kind: "agent" | "human"; modes: readonly CallMode[] }[] = [
  { principal: "support-bot", kind: "agent", modes: ["llm", "plan", "human"] },
  { principal: "alice", kind: "human", modes: ["human", "plan", "llm"] },
  { principal: "dana", kind: "human", modes: ["human", "plan"] },
  { principal: "bob", kind: "human", modes: ["human"] },
];

/** One call this test made, what it asked for and what the live policy service recorded. */
interface Made {
  readonly callId: string;
  readonly request: DecideRequest;
  readonly checked: ToolPolicyChecked;
}

describe("policy authoring against the running Warden: decide agrees with the live policy service, whatif finds exactly what a change affects", { timeout: 180_000 }, () => {
  let w: TestWarden;
  let dir: string;
  /** The test Warden's home, with the policy files of this test in the working directory. */
  let at: WardenAt;
  let records: ToolRecord[];
  const clients = new Map<string, AgentClient>();
  const made: Made[] = [];
  /** The end of the calls made under the demo policy, and the start of those made under the rate-limited one. */
  let boundary: Date;
  let start: Date;
  /** How many calls were made under the demo policy (before the boundary). */
  let madeBefore = 0;

  /** A command run in this process (no node start-up each); only the refusal for want of a terminal runs a process. */
  const warden = (...args: string[]): Promise<CliRan> => runWardenAt(at, ...args);
  const json = (r: CliRan): Record<string, unknown> => {
    expect(r.err).toBe("");
    return outJson(r);
  };

  async function client(principal: string, kind: "agent" | "human"): Promise<AgentClient> {
    let c = clients.get(principal);
    if (c === undefined) {
      c = createAgentClient({ bus: kind === "agent" ? await w.agentBus(principal) : await w.humanBus(principal), principal, timeoutMs: 20_000 });
      clients.set(principal, c);
    }
    return c;
  }

  /** Makes a call through the whole system and keeps what the policy service decided for it. */
  async function call(kind: "agent" | "human", request: DecideRequest): Promise<Made> {
    const c = await client(request.principal, kind);
    const r = await c.call(request.tool, ARGS[request.tool] ?? {}, { mode: request.mode, flags: request.flags, scope: request.scope });
    const domain = parseToolName(request.tool)!.domain;
    const checked = await eventually(async () => {
      const e = await readEvent(w.bus, domain, r.callId, "ToolPolicyChecked");
      if (e === undefined) throw new Error(`no policy decision for ${request.tool} by ${request.principal} (${r.status}: ${r.error?.message ?? ""})`);
      return e;
    });
    const m = { callId: r.callId, request, checked };
    made.push(m);
    return m;
  }

  beforeAll(async () => {
    // every service as its own identity, the support-desk demo and its policy, as `warden up --demo` runs them
    w = await startTestWarden({ demo: true });
    dir = mkdtempSync(join(tmpdir(), "warden-policy-authoring-"));
    at = { home: w.nats.home.dir, cwd: dir };
    // the person at the terminal, whom `warden up --demo` mints and no caller below uses
    await w.nats.home.addIdentity({ kind: "human", name: "cli" });
    writeFileSync(join(dir, "demo-policy.yaml"), toYaml(supportDeskPolicy));
    const listed = await createRegistryClient(w.bus).list();
    if (!listed.ok) throw new Error(listed.error.message);
    records = listed.value;
    expect(new Set(records.map((r) => r.descriptor.name))).toEqual(new Set(Object.keys(ARGS)));
    start = new Date();
    // every demo tool in every mode, by an agent and by people; a scoped tool in and out of its scope, a flagged one with its flag turned off
    for (const r of records) {
      const d = r.descriptor;
      for (const caller of CALLERS) {
        for (const mode of caller.modes) {
          for (const scope of [null, ...d.scopes]) {
            for (const flags of d.featureFlag === undefined ? [{}] : [{}, { [d.featureFlag]: false }]) {
              await call(caller.kind, { tool: d.name, principal: caller.principal, mode, flags, scope });
            }
          }
        }
      }
    }
    // a boundary in time between the calls made under the demo policy and those made after (stream times are in ms)
    await new Promise((r) => setTimeout(r, 20));
    boundary = new Date();
    madeBefore = made.length;
  }, 150_000);

  afterAll(async () => {
    await Promise.allSettled([...clients.values()].map((c) => c.close()));
    await w?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("decides every demo tool in every mode as the live policy service did: decision, rules, reason and policy version", () => {
    expect(made.length).toBeGreaterThan(80);
    const decisions = new Set(made.map((m) => m.checked.data.decision));
    expect(decisions).toEqual(new Set(["allow", "require_approval", "deny"]));
    for (const m of made) {
      const d = decideRequest(supportDeskPolicy, records, m.request);
      if (!d.ok) throw new Error(d.error.message);
      const live = m.checked.data;
      expect({ decision: d.value.decision, ruleIds: d.value.ruleIds, reason: d.value.reason, policyVersion: d.value.policyVersion }, JSON.stringify(m.request)).toEqual({
        decision: live.decision,
        ruleIds: live.ruleIds,
        reason: live.reason,
        policyVersion: live.policyVersion,
      });
    }
  });

  it("shows the ToolView the registry compiles for the same caller", async () => {
    const queries = new Map(made.map((m) => [JSON.stringify([m.request.principal, m.request.mode, m.request.flags, m.request.scope]), m.request]));
    for (const q of queries.values()) {
      const live = await createRegistryClient(w.bus).view({ principal: q.principal, mode: q.mode, flags: q.flags, scope: q.scope, explain: true, format: "mcp" });
      if (!live.ok) throw new Error(live.error.message);
      const d = decideRequest(supportDeskPolicy, records, q);
      if (!d.ok) throw new Error(d.error.message);
      expect({ tools: d.value.toolView.tools, hidden: d.value.toolView.hidden, policyVersion: d.value.toolView.policyVersion }, JSON.stringify(q)).toEqual({
        tools: live.value.view.tools,
        hidden: live.value.view.hidden,
        policyVersion: live.value.view.policyVersion,
      });
    }
  });

  it("warden policy decide agrees with the live service, from `warden tools list --json` and from the registry", async () => {
    const listed = await warden("tools", "list", "--json");
    expect(listed.code).toBe(0);
    writeFileSync(join(dir, "tools.json"), listed.out);
    const samples = [
      made.find((m) => m.request.tool === "ticket.fill" && m.request.mode === "llm" && m.request.scope !== null)!,
      made.find((m) => m.request.tool === "kb.reindex" && m.request.principal === "dana" && m.request.mode === "human" && m.request.flags["kbAdmin"] === false)!,
      made.find((m) => m.request.tool === "customer.message" && m.request.principal === "support-bot" && m.request.mode === "llm")!,
    ];
    for (const [i, m] of samples.entries()) {
      // one from the registry over the bus, the others from the file with no bus at all
      const source = i === 0 ? [] : ["--tools", "tools.json"];
      const r = await warden("policy", "decide", "demo-policy.yaml", ...source, "--json", "--request", JSON.stringify({ ...m.request, args: ARGS[m.request.tool] }));
      expect(r.code, r.err).toBe(0);
      expect(json(r)).toMatchObject({ decision: m.checked.data.decision, ruleIds: m.checked.data.ruleIds, reason: m.checked.data.reason, args: { valid: true } });
    }
  });

  it("warden policy check lints against the registered tools: the demo policy is clean, a typo of a tool name is found", async () => {
    const clean = await warden("policy", "check", "demo-policy.yaml", "--strict", "--json");
    expect(json(clean)).toMatchObject({ ok: true, errors: [], warnings: [], checked: { tools: { source: "registry", count: records.length }, identities: { source: "warden_home" } } });
    expect(clean.code).toBe(0);
    const typo: PolicyDocumentInput = { ...supportDeskPolicy, version: "typo-1", rules: [{ id: "no-search", match: { tool: "kb.serch" }, effect: "deny", reason: "closed" }] };
    writeFileSync(join(dir, "typo.yaml"), toYaml(typo));
    const r = await warden("policy", "check", "typo.yaml");
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^typo\.yaml:\d+:\d+: warning: rule no-search: no tool kb\.serch is registered \(did you mean kb\.search\?\) \[tool\.unknown\]$/m);
  });

  describe("whatif over the recorded history", () => {
    const FLOOD = "flood-bot";
    const changedIds = (report: Record<string, unknown>) => (report["changes"] as { callIds: string[] }[]).flatMap((c) => c.callIds).sort();
    const ids = (list: readonly Made[]) => list.map((m) => m.callId).sort();

    beforeAll(async () => {
      // the live policy changes: flood-bot gets a bucket of two calls, so its later calls are refused by history, not by a rule
      const limited = PolicyDocumentSchema.parse({
        ...supportDeskPolicy,
        version: "support-desk-rl",
        principals: { ...supportDeskPolicy.principals, [FLOOD]: { kind: "agent", rateLimit: { ratePerSecond: 0.001, burst: 2 } } },
      });
      const put = await putPolicyDocument(w.bus, limited);
      if (!put.ok) throw new Error(put.error.message);
      // past the boundary in time, then wait until the policy service decides under the new document
      await new Promise((r) => setTimeout(r, 20));
      await eventually(async () => {
        const probe = await call("agent", { tool: "kb.search", principal: "support-bot", mode: "llm", flags: {}, scope: null });
        expect(probe.checked.data.policyVersion).toBe("support-desk-rl");
      });
      for (let i = 0; i < 4; i++) await call("agent", { tool: "kb.search", principal: FLOOD, mode: "llm", flags: {}, scope: null });
      const flood = made.filter((m) => m.request.principal === FLOOD);
      expect(flood.map((m) => m.checked.data.ruleIds[0])).toEqual(["default.read.llm", "default.read.llm", "rate.principal", "rate.principal"]);
    });

    it("finds no change when the candidate is the document that decided", async () => {
      const r = await warden("policy", "whatif", "demo-policy.yaml", "--since", start.toISOString(), "--until", boundary.toISOString(), "--json");
      expect(r.code, r.err).toBe(0);
      const report = json(r);
      expect(report).toMatchObject({ requested: madeBefore, changed: 0, changes: [], recordedUnder: ["support-desk-4"] });
      expect(report["replayed"]).toBe(report["requested"]);
    });

    it("finds exactly the calls a crafted change affects, and none other, grouped by rule", async () => {
      const candidate: PolicyDocumentInput = {
        ...supportDeskPolicy,
        version: "candidate-1",
        // models may no longer fill tickets: their fills are refused, not sent for approval
        llm: { showWrite: [] },
        rules: [
          { id: "no-search-for-flood", match: { tool: "kb.search", principal: FLOOD }, effect: "deny", reason: "flood-bot searches too much" },
          { id: "plans-fetch-with-care", match: { tool: "session.fetch", mode: "plan" }, effect: "require_approval", reason: "sessions hold customer data" },
        ],
      };
      writeFileSync(join(dir, "candidate.yaml"), toYaml(candidate));
      const r = await warden("policy", "whatif", "candidate.yaml", "--since", start.toISOString(), "--json", "--examples", "1");
      expect(r.code, r.err).toBe(0);
      const report = json(r);
      // what each part of the change must touch, read from the recorded history (not from the engine)
      const was = (m: Made, d: string) => m.checked.data.decision === d && m.checked.data.ruleIds[0] !== "rate.principal";
      const flood = made.filter((m) => m.request.principal === FLOOD && was(m, "allow"));
      const plans = made.filter((m) => m.request.tool === "session.fetch" && m.request.mode === "plan" && was(m, "allow"));
      const fills = made.filter((m) => m.request.tool === "ticket.fill" && m.request.mode === "llm" && was(m, "require_approval"));
      // flood-bot's two allowed searches; plan-mode fetches by support-bot, alice and dana; models' fills in the ticket page
      expect([flood.length, plans.length, fills.length]).toEqual([2, 3, 2]);
      expect(changedIds(report)).toEqual(ids([...flood, ...plans, ...fills]));
      expect(report["changes"]).toEqual([
        expect.objectContaining({ from: { decision: "allow", ruleIds: ["default.read.plan"] }, to: { decision: "require_approval", ruleIds: ["plans-fetch-with-care"] }, count: 3 }),
        expect.objectContaining({ from: { decision: "allow", ruleIds: ["default.read.llm"] }, to: { decision: "deny", ruleIds: ["view.not_shown", "no-search-for-flood"] }, count: 2 }),
        expect.objectContaining({ from: { decision: "require_approval", ruleIds: ["default.write.llm"] }, to: { decision: "deny", ruleIds: ["view.not_shown", "llm.show_write"] }, count: 2 }),
      ]);
      // the two calls the rate limit refused are not replayed: that depended on history, not on the document
      expect(report).toMatchObject({ notReplayed: { rate_limit: 2 }, changed: 7, recordedUnder: ["support-desk-4", "support-desk-rl"] });
      const text = await warden("policy", "whatif", "candidate.yaml", "--since", start.toISOString());
      expect(text.out).toContain("allow → require_approval: 3 calls, by plans-fetch-with-care (was default.read.plan)");
      expect(text.out).toContain("not replayed (they depend on history, not on the document alone): 2 decided by rate limits");
    });

    it("keeps to the range and the filters it is given", async () => {
      const later = await warden("policy", "whatif", "candidate.yaml", "--since", boundary.toISOString(), "--json");
      const flood = made.filter((m) => m.request.principal === FLOOD && m.checked.data.decision === "allow");
      expect(changedIds(json(later))).toEqual(ids(flood));
      const byPrincipal = json(await warden("policy", "whatif", "candidate.yaml", "--since", start.toISOString(), "--principal", "alice", "--json"));
      expect(changedIds(byPrincipal)).toEqual(
        ids(made.filter((m) => m.request.principal === "alice" && ((m.request.tool === "session.fetch" && m.request.mode === "plan") || (m.request.tool === "ticket.fill" && m.request.mode === "llm" && m.checked.data.decision === "require_approval")))),
      );
      const plansChanged = made.filter((m) => m.request.tool === "session.fetch" && m.request.mode === "plan").length;
      const byTool = json(await warden("policy", "whatif", "candidate.yaml", "--since", start.toISOString(), "--tool", "session.*", "--json"));
      expect(byTool).toMatchObject({ requested: made.filter((m) => m.request.tool === "session.fetch").length, changed: plansChanged });
    });
  });
  describe("shadow rules, then policy set", () => {
    const SHADOW_RULE = "try-no-kb-for-bot";
    const shadowDoc: PolicyDocumentInput = {
      ...supportDeskPolicy,
      version: "support-desk-shadow",
      rules: [...(supportDeskPolicy.rules ?? []), { id: SHADOW_RULE, match: { tool: "kb.search", principal: "support-bot" }, effect: "deny", reason: "would keep the bot out of the knowledge base", mode: "shadow" }],
    };
    const inForce = async () => (json(await warden("policy", "show", "--json"))["document"] as { version: string }).version;

    beforeAll(() => writeFileSync(join(dir, "shadow.yaml"), toYaml(shadowDoc)));

    it("refuses to store without a terminal to ask on unless --yes; --dry-run shows the changes and the last day's what-if and stores nothing", async () => {
      const before = await inForce();
      // a process whose stdin is not a terminal: bin/main.js offers the command no prompt
      const refused = await spawnWarden(at, "policy", "set", "shadow.yaml");
      expect(refused.code).toBe(1);
      expect(refused.err).toMatch(/stdin is not a terminal: pass --yes/);
      // it showed what it would have asked about before refusing
      expect(refused.out).toContain(`rules.${SHADOW_RULE}: added (deny, shadow): would keep the bot out of the knowledge base`);
      const dry = await warden("policy", "set", "shadow.yaml", "--dry-run", "--json");
      expect(dry.code, dry.err).toBe(0);
      expect(json(dry)).toMatchObject({
        applied: false,
        reason: "dry_run",
        inForce: { version: before },
        changes: expect.arrayContaining([{ path: `rules.${SHADOW_RULE}`, kind: "added", text: expect.stringContaining("(deny, shadow)") }]),
        diff: expect.stringContaining(`+    mode: shadow`),
        // the shadow rule decides nothing, so no recorded call of the last day would be decided otherwise
        whatIf: { candidateVersion: "support-desk-shadow", requested: expect.any(Number), changed: 0 },
      });
      const text = await warden("policy", "set", "shadow.yaml", "--dry-run");
      expect(text.out).toContain(`policy set shadow.yaml: ${before}`);
      expect(text.out).toContain("what if support-desk-shadow (shadow.yaml) had decided the");
      expect(text.out).toContain("not stored (--dry-run)");
      expect(await inForce()).toBe(before);
    });

    it("stores the document as a policy author with --yes, and records the change under the author's own name", async () => {
      const before = await inForce();
      await w.nats.home.addIdentity({ kind: "policy-author", name: "pat" });
      const set = await warden("policy", "set", "shadow.yaml", "--yes", "--as", "pat", "--json");
      expect(set.code, set.err).toBe(0);
      expect(json(set)).toMatchObject({ ok: true, applied: true, version: "support-desk-shadow", author: "pat" });
      expect(await inForce()).toBe("support-desk-shadow");
      const history = json(await warden("policy", "history", "--json"));
      const changes = history["changes"] as Record<string, unknown>[];
      expect(changes.at(-1)).toMatchObject({
        author: "pat",
        version: "support-desk-shadow",
        previousVersion: before,
        revision: (json(set) as { revision: number }).revision,
        confirmed: "yes",
        // against support-desk-rl, which had flood-bot's bucket
        changes: [`version: "${before}" → "support-desk-shadow"`, "principals.flood-bot: removed: agent", `rules.${SHADOW_RULE}: added (deny, shadow): would keep the bot out of the knowledge base`],
        whatIf: { replayed: expect.any(Number), changed: 0 },
      });
      // every stored revision has its record: the harness's and this test's puts were recorded as the admin's
      expect(history["unrecorded"]).toEqual([]);
      expect(changes.slice(0, -1).every((c) => c["author"] === "admin")).toBe(true);
      const again = await warden("policy", "set", "shadow.yaml", "--yes", "--as", "pat", "--json");
      expect(json(again)).toMatchObject({ applied: false, reason: "unchanged" });
    });

    it("records what the shadow rule would decide on ToolPolicyChecked without deciding, and audit reports the disagreement", async () => {
      await eventually(async () => {
        const probe = await call("agent", { tool: "kb.search", principal: "support-bot", mode: "llm", flags: {}, scope: null });
        expect(probe.checked.data.policyVersion).toBe("support-desk-shadow");
      });
      const since = new Date(Date.now() - 1);
      const bot = await call("agent", { tool: "kb.search", principal: "support-bot", mode: "llm", flags: {}, scope: null });
      expect(bot.checked.data).toMatchObject({ decision: "allow", ruleIds: ["default.read.llm"], shadow: { decision: "deny", shadowRuleIds: [SHADOW_RULE] } });
      const alice = await call("human", { tool: "kb.search", principal: "alice", mode: "human", flags: {}, scope: null });
      expect(alice.checked.data.decision).toBe("allow");
      expect(alice.checked.data.shadow).toBeUndefined();
      const audit = json(await warden("audit", "--since", since.toISOString(), "--json"));
      expect(audit["shadow"]).toEqual({
        matched: 1,
        disagree: 1,
        disagreements: [{ shadowRuleIds: [SHADOW_RULE], decision: "allow", shadowDecision: "deny", count: 1, callIds: [bot.callId] }],
      });
      const text = await warden("audit", "--since", since.toISOString());
      expect(text.out).toContain(`${SHADOW_RULE}: allow → deny on 1 call (${bot.callId})`);
      const decided = json(await warden("policy", "decide", "shadow.yaml", "--json", "--request", JSON.stringify({ tool: "kb.search", principal: "support-bot", mode: "llm" })));
      expect(decided).toMatchObject({ decision: "allow", shadow: { decision: "deny", shadowRuleIds: [SHADOW_RULE] } });
    });
  });
});
