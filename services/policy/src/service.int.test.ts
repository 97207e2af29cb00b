import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendEvent, kvPutJson, readEvent, silentLogger, type StageContext } from "@warden/bus";
import { newId, type EventType, type ToolArgsValidated } from "@warden/contracts/events";
import { BUCKET_POLICY, policyChangedSubject, STREAM_POLICY_CHANGES } from "@warden/contracts/subjects";
import { type ToolDescriptorInput, type ToolRecord } from "@warden/contracts/descriptor";
import { POLICY_DOCUMENT_KEY, type PolicyDocumentInput } from "@warden/contracts/policy";
import { eventually, putToolRecord, toolRecordOf, useTestNats } from "@warden/testing";
import { validatedCall, type ValidatedCallOptions } from "../test-support/validated-call.js";
import { openBudgetGuard } from "./budget-guard.js";
import { handleToolArgsValidated } from "./handlers/tool-args-validated.js";
import { followPolicyDocument, startDescriptorCache } from "@warden/service-kit";
import { getPolicyDocument, getStoredPolicyDocument, putPolicyDocument } from "./policy-document.js";
import { startPolicyService, type PolicyService } from "./service.js";

const server = useTestNats();
let service: PolicyService;

async function register(input: Partial<ToolDescriptorInput> & { name: string; grade: ToolDescriptorInput["grade"] }): Promise<ToolRecord> {
  const record = toolRecordOf({
    version: "1.0.0",
    title: input.name,
    description: "Use it when the policy tests need a tool of this grade.",
    inputSchema: { type: "object" },
    ...input,
  });
  await putToolRecord(server.bus, record);
  return record;
}

async function eventOf<T extends EventType>(ev: ToolArgsValidated, type: T) {
  return eventually(async () => {
    const found = await readEvent(server.bus, ev.domain, ev.callId, type);
    expect(found, `${type} of ${ev.callId}`).toBeDefined();
    return found!;
  });
}

/** Calls and waits for the decision. */
async function call(record: ToolRecord, o: ValidatedCallOptions = {}) {
  const ev = validatedCall(record, o);
  expect((await appendEvent(server.bus, ev)).status).toBe("written");
  return { ev, checked: await eventOf(ev, "ToolPolicyChecked") };
}

/** Calls are alice's, in mode human unless told: the document names her a person granted kbAdmin. */
const PRINCIPALS: PolicyDocumentInput["principals"] = { alice: { kind: "human", flags: { kbAdmin: true } } };

async function useDocument(doc: PolicyDocumentInput): Promise<void> {
  const r = await putPolicyDocument(server.bus, { principals: PRINCIPALS, ...doc });
  expect(r.ok).toBe(true);
  await eventually(() => expect(service.document().version).toBe(doc.version));
}

beforeAll(async () => {
  service = await startPolicyService({ bus: server.bus, log: silentLogger() });
});
afterAll(async () => {
  await service.stop();
});

describe("the policy-check stage", () => {
  it("allows a read call and names the default rule and the policy version", async () => {
    await useDocument({ version: "allow-1" });
    const kb = await register({ name: "kb.search", grade: "read" });
    const { ev, checked } = await call(kb, { mode: "llm" });
    expect(checked).toMatchObject({ causationId: ev.eventId, correlationId: ev.correlationId, principal: "alice", mode: "llm" });
    expect(checked.data).toMatchObject({
      decision: "allow",
      ruleIds: ["default.read.llm"],
      policyVersion: "allow-1",
      version: "1.0.0",
      descriptorHash: kb.descriptorHash,
      grade: "read",
      argsHash: ev.data.argsHash,
      args: ev.data.args,
    });
    expect(await readEvent(server.bus, ev.domain, ev.callId, "ToolCallRejected")).toBeUndefined();
  });

  it("sends a model's send to a person (default.send.llm), and closes it POLICY_DENIED only where the document denies it", async () => {
    await useDocument({ version: "send-1" });
    const msg = await register({ name: "customer.message", grade: "send" });
    const waits = await call(msg, { mode: "llm" });
    expect(waits.checked.data).toMatchObject({ decision: "require_approval", ruleIds: ["default.send.llm"], policyVersion: "send-1" });
    expect(await readEvent(server.bus, waits.ev.domain, waits.ev.callId, "ToolCallRejected")).toBeUndefined();
    await useDocument({ version: "deny-1", rules: [{ id: "no-model-sends", match: { grade: ["send"], mode: ["llm"] }, effect: "deny", reason: "models send nothing here" }] });
    const { ev, checked } = await call(msg, { mode: "llm" });
    expect(checked.data).toMatchObject({ decision: "deny", ruleIds: ["no-model-sends"] });
    const rejected = await eventOf(ev, "ToolCallRejected");
    expect(rejected.causationId).toBe(checked.eventId);
    expect(rejected.data).toMatchObject({
      stage: "policy",
      error: { code: "POLICY_DENIED", retryable: false },
      ruleIds: ["no-model-sends"],
      policyVersion: "deny-1",
    });
  });

  it("takes a tool's feature flag from the document's grant to the caller: the call may turn it off, never on", async () => {
    await useDocument({ version: "flags-1", principals: { ...PRINCIPALS, bot: { kind: "agent" } } });
    const reindex = await register({ name: "kb.reindex", grade: "read", featureFlag: "kbAdmin" });
    expect((await call(reindex)).checked.data).toMatchObject({ decision: "allow", policyVersion: "flags-1" });
    const off = await call(reindex, { flags: { kbAdmin: false } });
    expect(off.checked.data).toMatchObject({ decision: "deny", ruleIds: ["gate.feature_flag"] });
    expect((await eventOf(off.ev, "ToolCallRejected")).data.error.code).toBe("POLICY_DENIED");
    for (const principal of ["bot", "mallory"]) {
      const asked = await call(reindex, { principal, mode: "plan", flags: { kbAdmin: true } });
      expect(asked.checked.data, principal).toMatchObject({ decision: "deny", ruleIds: ["gate.feature_flag"] });
    }
  });

  it("rejects mode human claimed by a principal the document does not name, so it cannot confirm its own send", async () => {
    await useDocument({ version: "human-1" });
    const msg = await register({ name: "customer.message", grade: "send" });
    const { ev, checked } = await call(msg, { principal: "mallory", mode: "human" });
    expect(checked.data).toMatchObject({ decision: "deny", ruleIds: ["gate.human_mode_needs_person"] });
    expect(checked.data.reason).toMatch(/mallory is not named in the policy document/);
    const rejected = await eventOf(ev, "ToolCallRejected");
    expect(rejected.data).toMatchObject({ error: { code: "POLICY_DENIED" }, ruleIds: ["gate.human_mode_needs_person"] });
    const person = await call(msg, { principal: "alice", mode: "human" });
    expect(person.checked.data.decision).toBe("require_approval");
  });

  it("asks for approval when a model calls a write tool its view shows, and rejects nothing", async () => {
    await useDocument({ version: "show-write-1", llm: { showWrite: ["ticket.*"] } });
    const submit = await register({ name: "ticket.submit", grade: "write" });
    const { ev, checked } = await call(submit, { mode: "llm", principal: "bot" });
    expect(checked.data).toMatchObject({ decision: "require_approval", ruleIds: ["default.write.llm"] });
    expect(await readEvent(server.bus, ev.domain, ev.callId, "ToolCallRejected")).toBeUndefined();
  });

  it("denies a model's call to a write tool its view does not show with view.not_shown", async () => {
    await useDocument({ version: "hidden-write-1" });
    const submit = await register({ name: "ticket.submit", grade: "write" });
    const { ev, checked } = await call(submit, { mode: "llm", principal: "bot" });
    expect(checked.data).toMatchObject({ decision: "deny", ruleIds: ["view.not_shown", "llm.show_write"] });
    expect((await eventOf(ev, "ToolCallRejected")).data).toMatchObject({ stage: "policy", error: { code: "POLICY_DENIED" } });
  });

  it("refuses a burst over a principal's rate RATE_LIMITED with retryAfterMs, while another principal's calls go on", async () => {
    await useDocument({ version: "rate-1", rateLimits: { perPrincipal: { ratePerSecond: 0.01, burst: 3 } } });
    const kb = await register({ name: "kb.search", grade: "read" });
    const flooder = `bot-${newId()}`;
    const burst = await Promise.all(Array.from({ length: 6 }, () => call(kb, { principal: flooder, mode: "plan" })));
    const decisions = burst.map((b) => b.checked.data.decision);
    expect(decisions.filter((d) => d === "allow")).toHaveLength(3);
    const limited = burst.filter((b) => b.checked.data.decision === "deny");
    expect(limited).toHaveLength(3);
    for (const l of limited) {
      expect(l.checked.data).toMatchObject({ ruleIds: ["rate.principal"], policyVersion: "rate-1" });
      const rejected = await eventOf(l.ev, "ToolCallRejected");
      expect(rejected.data.error).toMatchObject({ code: "RATE_LIMITED", retryable: true });
      expect(rejected.data.error.details?.["retryAfterMs"]).toBeGreaterThan(0);
    }
    const other = await call(kb, { principal: `carol-${newId()}`, mode: "plan" });
    expect(other.checked.data.decision).toBe("allow");
  });

  it("counts a per-tool bucket per principal and tool, apart from the principal's other tools", async () => {
    await useDocument({ version: "rate-tool-1", rateLimits: { perTool: [{ tool: "crm.*", ratePerSecond: 0.01, burst: 1 }] } });
    const crm = await register({ name: "crm.export", grade: "read" });
    const kb = await register({ name: "kb.search", grade: "read" });
    const p = `bot-${newId()}`;
    expect((await call(crm, { principal: p, mode: "plan" })).checked.data.decision).toBe("allow");
    expect((await call(crm, { principal: p, mode: "plan" })).checked.data).toMatchObject({ decision: "deny", ruleIds: ["rate.tool"] });
    expect((await call(kb, { principal: p, mode: "plan" })).checked.data.decision).toBe("allow");
    expect((await call(crm, { principal: `other-${newId()}`, mode: "plan" })).checked.data.decision).toBe("allow");
  });

  it("holds a principal to budgets.maxCallsPerPrincipal whatever run ids it names (BUDGET_EXCEEDED)", async () => {
    await useDocument({ version: "principal-budget-1", budgets: { maxCallsPerRun: 10, maxCallsPerPrincipal: { calls: 2, perSeconds: 3600 } } });
    const kb = await register({ name: "kb.search", grade: "read" });
    const p = `bot-${newId()}`;
    expect((await call(kb, { principal: p, mode: "plan", runId: newId() })).checked.data.decision).toBe("allow");
    expect((await call(kb, { principal: p, mode: "plan", runId: newId() })).checked.data.decision).toBe("allow");
    const third = await call(kb, { principal: p, mode: "plan", runId: newId() });
    expect(third.checked.data).toMatchObject({ decision: "deny", ruleIds: ["budget.max_calls_per_principal"] });
    expect((await eventOf(third.ev, "ToolCallRejected")).data.error).toMatchObject({ code: "BUDGET_EXCEEDED", retryable: false });
  });

  it("denies the (n+1)th call of a run with BUDGET_EXCEEDED and leaves other runs alone", async () => {
    await useDocument({ version: "budget-2", budgets: { maxCallsPerRun: 2 } });
    const kb = await register({ name: "kb.search", grade: "read" });
    const runId = newId();
    expect((await call(kb, { runId })).checked.data.decision).toBe("allow");
    expect((await call(kb, { runId })).checked.data.decision).toBe("allow");
    const third = await call(kb, { runId });
    expect(third.checked.data).toMatchObject({ decision: "deny", ruleIds: ["budget.max_calls_per_run"], policyVersion: "budget-2" });
    expect((await eventOf(third.ev, "ToolCallRejected")).data.error.code).toBe("BUDGET_EXCEEDED");
    expect((await call(kb, { runId: newId() })).checked.data.decision).toBe("allow");
  });

  it("changes the next decision when a new document is put, without a restart", async () => {
    await useDocument({ version: "open-1" });
    const kb = await register({ name: "kb.search", grade: "read" });
    expect((await call(kb)).checked.data.decision).toBe("allow");
    const yaml = ["version: closed-2", "principals:", "  alice: { kind: human }", "rules:", "  - id: kb-closed", "    effect: deny", "    reason: the knowledge base is closed for maintenance", "    match: { domain: kb }"].join("\n");
    const put = await putPolicyDocument(server.bus, yaml);
    expect(put.ok).toBe(true);
    await eventually(() => expect(service.document().version).toBe("closed-2"));
    const { ev, checked } = await call(kb);
    expect(checked.data).toMatchObject({ decision: "deny", ruleIds: ["kb-closed"], policyVersion: "closed-2", reason: "the knowledge base is closed for maintenance" });
    expect((await eventOf(ev, "ToolCallRejected")).data.error.code).toBe("POLICY_DENIED");
  });

  it("records what a shadow rule would decide on ToolPolicyChecked, and lets the enforced rules decide", async () => {
    await useDocument({
      version: "shadow-1",
      rules: [{ id: "kb-closed-trial", match: { domain: "kb" }, effect: "deny", reason: "would close the knowledge base", mode: "shadow" }],
    });
    const kb = await register({ name: "kb.search", grade: "read" });
    const { ev, checked } = await call(kb);
    expect(checked.data).toMatchObject({
      decision: "allow",
      ruleIds: ["default.read.human"],
      shadow: { decision: "deny", ruleIds: ["kb-closed-trial"], reason: "would close the knowledge base", shadowRuleIds: ["kb-closed-trial"] },
    });
    expect(await readEvent(server.bus, ev.domain, ev.callId, "ToolCallRejected")).toBeUndefined();
    const other = await register({ name: "crm.lookup", grade: "read" });
    expect((await call(other)).checked.data.shadow).toBeUndefined();
  });

  it("denies a call whose descriptor changed since it was validated, with DESCRIPTOR_CHANGED", async () => {
    await useDocument({ version: "bound-1" });
    const kb = await register({ name: "kb.search", grade: "read" });
    const { ev, checked } = await call(kb, { descriptorHash: `sha256:${"0".repeat(64)}` });
    expect(checked.data).toMatchObject({ decision: "deny", ruleIds: ["invariant.descriptor_bound"] });
    expect((await eventOf(ev, "ToolCallRejected")).data.error.code).toBe("DESCRIPTOR_CHANGED");
  });
});

describe("the policy document", () => {
  it("is stored from YAML, read back, and an invalid one is refused as a value and leaves the stored one in force", async () => {
    const put = await putPolicyDocument(server.bus, "version: yaml-1\nbudgets:\n  maxCallsPerRun: 5\n");
    expect(put.ok).toBe(true);
    const got = await getPolicyDocument(server.bus);
    expect(got.ok && got.value).toMatchObject({ version: "yaml-1", budgets: { maxCallsPerRun: 5 } });
    const bad = await putPolicyDocument(server.bus, "version: bad\nrules:\n  - effect: maybe\n");
    expect(bad).toMatchObject({ ok: false, error: { code: "INVALID_REQUEST" } });
    const still = await getPolicyDocument(server.bus);
    expect(still.ok && still.value.version).toBe("yaml-1");
  });

  it("records every change with its author, the identity the server authenticated, and refuses a change over one it did not see", async () => {
    const authorBus = await server.nats.connectAs({ kind: "policy-author", name: "dana" });
    try {
      const before = await getStoredPolicyDocument(authorBus);
      expect(before.ok).toBe(true);
      if (!before.ok) return;
      const put = await putPolicyDocument(
        authorBus,
        { version: "authored-1", rules: [{ id: "no-crm", match: { domain: "crm" }, effect: "deny", reason: "crm is closed" }] },
        { expectedRevision: before.value.revision ?? 0, confirmed: "yes" },
      );
      expect(put.ok).toBe(true);
      if (!put.ok) return;
      expect(put.value.change).toMatchObject({
        type: "PolicyChanged",
        author: "dana",
        revision: put.value.revision,
        previousRevision: before.value.revision ?? null,
        version: "authored-1",
        previousVersion: before.value.revision === undefined ? null : before.value.document.version,
        confirmed: "yes",
      });
      expect(put.value.change.changes).toContain("rules.no-crm: added (deny): crm is closed");
      const recorded = await server.bus.jsm.streams.getMessage(STREAM_POLICY_CHANGES, { last_by_subj: policyChangedSubject("dana") });
      expect(recorded?.json()).toEqual(put.value.change);
      // a change over a revision that is no longer in force is refused, and stores nothing
      const stale = await putPolicyDocument(authorBus, { version: "authored-stale" }, { expectedRevision: before.value.revision ?? 0 });
      expect(stale).toMatchObject({ ok: false, error: { code: "POLICY_CONFLICT", retryable: true } });
      expect(await getStoredPolicyDocument(server.bus)).toMatchObject({ ok: true, value: { revision: put.value.revision } });
      // the admin's own changes are recorded under its name
      const byAdmin = await putPolicyDocument(server.bus, { version: "admin-1" });
      expect(byAdmin.ok && byAdmin.value.change).toMatchObject({ author: "admin", previousVersion: "authored-1", previousRevision: put.value.revision });
    } finally {
      await authorBus.close();
    }
  });

  it("keeps the last valid document in force when an invalid one is written behind its back, and falls back to the defaults when deleted", async () => {
    const kv = await server.bus.kvm.open(BUCKET_POLICY);
    const lines: string[] = [];
    const log = pino({ level: "info" }, { write: (line: string) => lines.push(line) });
    const watch = await followPolicyDocument(server.bus, log);
    try {
      await putPolicyDocument(server.bus, { version: "valid-8" });
      await eventually(() => expect(watch.current().version).toBe("valid-8"));
      await kvPutJson(kv, POLICY_DOCUMENT_KEY, { version: "broken", rules: "not a list" });
      await eventually(() => expect(lines.some((l) => l.includes("invalid policy document ignored"))).toBe(true));
      expect(watch.current().version).toBe("valid-8");
      await kv.delete(POLICY_DOCUMENT_KEY);
      await eventually(() => expect(watch.current().version).toBe("builtin-0"));
    } finally {
      watch.stop();
    }
  });
});

describe("redelivery", () => {
  it("reuses a decision already written and never counts the budget twice", async () => {
    await useDocument({ version: "redeliver-1", budgets: { maxCallsPerRun: 3 } });
    const kb = await register({ name: "kb.search", grade: "read" });
    const documents = await followPolicyDocument(server.bus, silentLogger());
    const descriptors = await startDescriptorCache(server.bus);
    const budgets = await openBudgetGuard(server.bus);
    const handle = handleToolArgsValidated({ bus: server.bus, documents, descriptors, budgets });
    const ctx = (deliveryCount: number) => ({ log: silentLogger(), deliveryCount, possibleReplay: deliveryCount > 1 }) as unknown as StageContext;
    try {
      const runId = newId();
      // not on the stream, so only this handler (as a stage copy would on each redelivery) decides it
      const ev = validatedCall(kb, { runId });
      expect(await handle(ev, ctx(1))).toEqual({ kind: "ack" });
      const first = await eventOf(ev, "ToolPolicyChecked");
      expect(await handle(ev, ctx(1))).toEqual({ kind: "ack" });
      expect(await handle(ev, ctx(2))).toEqual({ kind: "ack" });
      expect((await readEvent(server.bus, ev.domain, ev.callId, "ToolPolicyChecked"))?.eventId).toBe(first.eventId);
      expect(await budgets.used(runId)).toBe(1);
    } finally {
      budgets.stop();
      descriptors.stop();
      documents.stop();
    }
  });
});
