import { describe, expect, it } from "vitest";
import { DEFAULT_VIEW_MAX_TOOLS, ToolViewQuerySchema, type ToolRecord, type ToolViewQueryInput } from "@warden/contracts/descriptor";
import { EMPTY_POLICY_DOCUMENT, PolicyDocumentSchema } from "@warden/contracts/policy";
import { record } from "../test-support/fixtures.js";
import { compileToolView } from "./compile-tool-view.js";

const obj = (properties: Record<string, unknown> = {}) => ({ type: "object", properties }) as unknown as Record<string, never>;
const sideEffects = "Use when the change is wanted; it changes what others see later.";

const registry: ToolRecord[] = [
  record(),
  record({ version: "0.9.0" }),
  record({ name: "kb.reindex", title: "Reindex", featureFlag: "kbAdmin", inputSchema: obj() }),
  record({ name: "ticket.fill", title: "Fill a ticket", grade: "write", scopes: ["ticket_page"], description: sideEffects, inputSchema: obj() }),
  record({ name: "ticket.submit", title: "Submit a ticket", grade: "write", description: sideEffects, inputSchema: obj() }),
  record({ name: "customer.message", title: "Message a customer", grade: "send", openWorld: true, description: sideEffects, inputSchema: obj() }),
  record({ name: "billing.refund", title: "Refund", grade: "read", requiredScopes: ["billing"], inputSchema: obj() }),
  record({ name: "old.lookup", title: "Old lookup", inputSchema: obj() }, "disabled"),
];

/** A record under a name the descriptor schema would refuse: only the compiler's own guards stand. */
const renamed = (r: ToolRecord, name: string): ToolRecord => ({ ...r, descriptor: { ...r.descriptor, name } });
const q = (input: Partial<ToolViewQueryInput> = {}) => ToolViewQuerySchema.parse({ principal: "agent-1", mode: "llm", ...input });
const explained = { explain: true };
/** alice is a person the document names, with the kbAdmin flag granted; bob is a person without it. */
const PEOPLE = PolicyDocumentSchema.parse({
  version: "people-1",
  principals: { alice: { kind: "human", flags: { kbAdmin: true } }, bob: { kind: "human" } },
});
const names = (v: { tools: { name: string }[] }) => v.tools.map((t) => t.name);
const reasonOf = (v: { hidden: { name: string; reason: string }[] }, name: string) => v.hidden.find((h) => h.name === name)?.reason;

describe("compileToolView", () => {
  it("hides the tools of a domain with no live executor as no_executor, when told which domains are live", () => {
    const view = compileToolView(registry, PEOPLE, q({ mode: "human", principal: "alice" }), { ...explained, liveDomains: new Set(["ticket"]) });
    expect(names(view)).toContain("ticket.submit");
    expect(names(view)).not.toContain("kb.search");
    expect(reasonOf(view, "kb.search")).toBe("no_executor");
    expect(view.hidden.find((h) => h.name === "kb.search")).toMatchObject({ detail: "no executor of domain kb is running: a call would be refused UNAVAILABLE", ruleIds: ["executor.liveness"] });
    // not told: not checked
    expect(reasonOf(compileToolView(registry, EMPTY_POLICY_DOCUMENT, q(), explained), "kb.search")).toBeUndefined();
  });

  it("gives each entry the level policy decides on, declared or derived, and the action type it declares", () => {
    const tools = [
      record({ name: "kb.search", actionType: "search" }),
      record({ name: "ticket.submit", title: "Submit a ticket", grade: "write", actionType: "write", description: sideEffects, inputSchema: obj() }),
      record({ name: "customer.message", title: "Message a customer", grade: "send", openWorld: true, description: sideEffects, inputSchema: obj() }),
      // declared above what its grade derives (L0)
      record({ name: "calc.run", title: "Run a sum", level: "L1", inputSchema: obj() }),
    ];
    const v = compileToolView(tools, PEOPLE, q({ mode: "human", principal: "alice" }));
    expect(v.tools.map((t) => [t.name, t.level, t.actionType])).toEqual([
      ["calc.run", "L1", undefined],
      ["customer.message", "L4", undefined],
      ["kb.search", "L0", "search"],
      ["ticket.submit", "L2", "write"],
    ]);
    // no action type declared: the entry has no such member at all (JSON leaves it out)
    expect(v.tools.find((t) => t.name === "calc.run")).not.toHaveProperty("actionType");
  });

  it("leaves the hidden list empty unless explained", () => {
    expect(compileToolView(registry, EMPTY_POLICY_DOCUMENT, q()).hidden).toEqual([]);
  });

  it("lists only read tools for a model by default, each hidden tool with its reason", () => {
    const v = compileToolView(registry, EMPTY_POLICY_DOCUMENT, q(), explained);
    expect(names(v)).toEqual(["kb.search"]);
    expect(reasonOf(v, "customer.message")).toBe("send_never_listed_for_llm");
    expect(reasonOf(v, "ticket.submit")).toBe("write_not_opted_in_for_llm");
    expect(reasonOf(v, "kb.reindex")).toBe("feature_flag_off");
    expect(reasonOf(v, "billing.refund")).toBe("missing_principal_scope");
    expect(reasonOf(v, "old.lookup")).toBe("disabled");
    expect(v.policyVersion).toBe(EMPTY_POLICY_DOCUMENT.version);
    // every registered name is either shown or hidden, never lost
    expect(v.tools.length + v.hidden.length).toBe(7);
  });

  it("lists a write for a model only where llm.showWrite opts in, and then it needs approval", () => {
    const doc = PolicyDocumentSchema.parse({ version: "p1", llm: { showWrite: ["ticket.*"] } });
    const v = compileToolView(registry, doc, q({ scope: "ticket_page" }), explained);
    expect(names(v)).toEqual(["kb.search", "ticket.fill", "ticket.submit"]);
    expect(v.tools.find((t) => t.name === "ticket.submit")).toMatchObject({ decision: "require_approval", ruleIds: ["default.write.llm"] });
  });

  it("never lists send for a model, whatever the document says", () => {
    const doc = PolicyDocumentSchema.parse({
      version: "p2",
      llm: { showWrite: ["*"] },
      rules: [{ id: "allow-all", match: {}, effect: "allow", reason: "trust" }],
    });
    const v = compileToolView(registry, doc, q({ flags: { kbAdmin: true }, scope: "ticket_page" }), explained);
    expect(names(v)).toContain("ticket.submit");
    expect(v.tools.every((t) => t.grade !== "send")).toBe(true);
    expect(reasonOf(v, "customer.message")).toBe("send_never_listed_for_llm");
  });

  it("shows a person every tool their context allows, send needing approval", () => {
    const v = compileToolView(registry, PEOPLE, q({ principal: "alice", mode: "human" }), explained);
    expect(names(v)).toEqual(["customer.message", "kb.reindex", "kb.search", "ticket.submit"]);
    expect(v.tools.find((t) => t.name === "customer.message")?.decision).toBe("require_approval");
    expect(reasonOf(v, "ticket.fill")).toBe("out_of_scope");
  });

  it("refuses mode human to a principal the document does not name as a person", () => {
    const v = compileToolView(registry, PEOPLE, q({ principal: "agent-1", mode: "human" }), explained);
    expect(names(v)).toEqual([]);
    expect(v.hidden.find((h) => h.name === "kb.search")).toMatchObject({ reason: "policy_denied", ruleIds: ["gate.human_mode_needs_person"] });
  });

  it("takes feature flags from the document: a caller may turn a granted flag off, never grant one", () => {
    const narrowed = compileToolView(registry, PEOPLE, q({ principal: "alice", mode: "human", flags: { kbAdmin: false } }), explained);
    expect(reasonOf(narrowed, "kb.reindex")).toBe("feature_flag_off");
    const widened = compileToolView(registry, PEOPLE, q({ principal: "bob", mode: "human", flags: { kbAdmin: true } }), explained);
    expect(names(widened)).not.toContain("kb.reindex");
    expect(reasonOf(widened, "kb.reindex")).toBe("feature_flag_off");
  });

  it("tells the model a tool acts with its caller's own credentials, and marks one using its executor's as service", () => {
    const tools = [
      record({ name: "crm.lookup", title: "CRM lookup", secrets: ["crm_token"], actsAs: "caller", inputSchema: obj() }),
      record({ name: "crm.stats", title: "CRM stats", secrets: ["crm_service"], inputSchema: obj() }),
    ];
    const v = compileToolView([...registry, ...tools], EMPTY_POLICY_DOCUMENT, q());
    const lookup = v.tools.find((t) => t.name === "crm.lookup");
    expect(lookup).toMatchObject({ actsAs: "caller" });
    expect(lookup?.description).toMatch(/acts on behalf of the person or agent you work for, with their own credentials/);
    expect(v.tools.find((t) => t.name === "crm.stats")).toMatchObject({ actsAs: "service" });
    expect(v.tools.find((t) => t.name === "kb.search")).not.toHaveProperty("actsAs");
  });

  it("lists each name once, at its newest enabled version", () => {
    const v = compileToolView([...registry, record({ version: "3.0.0" }, "disabled")], EMPTY_POLICY_DOCUMENT, q(), explained);
    expect(v.tools.filter((t) => t.name === "kb.search").map((t) => t.version)).toEqual(["1.0.0"]);
  });

  it("restricts to the allowed tools, by name or wire name", () => {
    const v = compileToolView(registry, PEOPLE, q({ principal: "alice", mode: "human", only: ["kb__search", "ticket.submit"] }), explained);
    expect(names(v)).toEqual(["kb.search", "ticket.submit"]);
    expect(reasonOf(v, "customer.message")).toBe("not_in_allowed_tools");
  });

  it("hides a denied tool with the rule that denied it", () => {
    const doc = PolicyDocumentSchema.parse({ version: "p3", rules: [{ id: "no-kb", match: { domain: "kb" }, effect: "deny", reason: "kb is down" }] });
    const v = compileToolView(registry, doc, q(), explained);
    expect(v.hidden.find((h) => h.name === "kb.search")).toMatchObject({ reason: "policy_denied", ruleIds: ["no-kb"], detail: "kb is down" });
  });

  it("hides both tools of a wire-name collision, with a detail naming both", () => {
    // valid names cannot collide; these bypass the name grammar to prove the guard holds
    const clash = [renamed(record(), "a_.b"), renamed(record(), "a._b"), record()];
    const v = compileToolView(clash, EMPTY_POLICY_DOCUMENT, q(), explained);
    expect(names(v)).toEqual(["kb.search"]);
    for (const name of ["a_.b", "a._b"]) {
      const h = v.hidden.find((x) => x.name === name);
      expect(h).toMatchObject({ reason: "policy_denied", ruleIds: ["wire_name.collision"] });
      expect(h?.detail).toContain("a___b");
      expect(h?.detail).toContain("a_.b");
      expect(h?.detail).toContain("a._b");
    }
  });

  it("hides a valid 64-character name whose wire name is too long for a model's API", () => {
    const long = `${"d".repeat(31)}.${"c".repeat(32)}`;
    const v = compileToolView([record({ name: long, inputSchema: obj() })], EMPTY_POLICY_DOCUMENT, q(), explained);
    expect(v.tools).toEqual([]);
    expect(v.hidden[0]).toMatchObject({ name: long, ruleIds: ["wire_name.invalid"] });
  });
});

describe("a view asked for without an intent", () => {
  // 30 tools a person may use: 12 reads (3 of them open-world: L3), 10 local writes, 8 sends
  const many: ToolRecord[] = [
    ...Array.from({ length: 9 }, (_, i) => record({ name: `kb.read_${String(i).padStart(2, "0")}`, title: "Read", inputSchema: obj() })),
    ...Array.from({ length: 3 }, (_, i) => record({ name: `web.fetch_${i}`, title: "Fetch", openWorld: true, inputSchema: obj() })),
    ...Array.from({ length: 10 }, (_, i) => record({ name: `app.write_${String(i).padStart(2, "0")}`, title: "Write", grade: "write", description: sideEffects, inputSchema: obj() })),
    ...Array.from({ length: 8 }, (_, i) => record({ name: `mail.send_${i}`, title: "Send", grade: "send", openWorld: true, description: sideEffects, inputSchema: obj() })),
  ];
  const person = q({ mode: "human", principal: "alice" });

  it("shows at most DEFAULT_VIEW_MAX_TOOLS, ranked reads first, then lower levels, then writes, and says how many it left out and how to ask", () => {
    const v = compileToolView(many, PEOPLE, person, explained);
    expect(v.tools).toHaveLength(DEFAULT_VIEW_MAX_TOOLS);
    // the 12 reads (the local L0 ones before the open-world L3 ones), then the first 8 writes by name; no send
    const reads = names(v).filter((n) => n.startsWith("kb.") || n.startsWith("web."));
    expect(reads).toHaveLength(12);
    expect(names(v).filter((n) => n.startsWith("app."))).toEqual(Array.from({ length: 8 }, (_, i) => `app.write_0${i}`));
    expect(names(v).some((n) => n.startsWith("mail."))).toBe(false);
    // listed by name, as an uncapped view is
    expect(names(v)).toEqual([...names(v)].sort());
    expect(v.omitted).toMatchObject({ count: 10, maxTools: 20, capFrom: "default", hint: expect.stringContaining("ask for a view with an intent") });
    const over = v.hidden.filter((h) => h.reason === "over_view_cap");
    expect(over.map((h) => h.name)).toEqual(["app.write_08", "app.write_09", ...Array.from({ length: 8 }, (_, i) => `mail.send_${i}`)]);
    expect(over[0]).toMatchObject({ ruleIds: ["view.max_tools"], detail: expect.stringContaining("this one ranks 21") });
    // not explained: the count is still said, the names are not
    const quiet = compileToolView(many, PEOPLE, person);
    expect(quiet).toMatchObject({ hidden: [], omitted: { count: 10 } });
  });

  it("ranks a tool that runs without a person before one of the same grade and level that waits for one, and level before that", () => {
    const doc = PolicyDocumentSchema.parse({ ...PEOPLE, version: "people-2", rules: [{ id: "careful", match: { tool: ["kb.read_00", "kb.read_01"] }, effect: "require_approval", reason: "careful" }] });
    expect(names(compileToolView(many, doc, person, { maxTools: 3 }))).toEqual(["kb.read_02", "kb.read_03", "kb.read_04"]);
    // the two that wait are still L0 reads: they rank before the open-world (L3) reads
    expect(names(compileToolView(many, doc, person, { maxTools: 10 }))).toEqual([...Array.from({ length: 9 }, (_, i) => `kb.read_0${i}`), "web.fetch_0"]);
  });

  it("takes its cap from the request first, then the policy document's views.maxTools, then the default", () => {
    const capped = PolicyDocumentSchema.parse({ ...PEOPLE, version: "people-3", views: { maxTools: 5 } });
    expect(compileToolView(many, capped, person).omitted).toMatchObject({ count: 25, maxTools: 5, capFrom: "policy" });
    expect(compileToolView(many, capped, person, { maxTools: 30 }).omitted).toBeUndefined();
    expect(compileToolView(many, capped, person, { maxTools: 30 }).tools).toHaveLength(30);
    expect(compileToolView(many, PEOPLE, person, { maxTools: 2 }).omitted).toMatchObject({ count: 28, maxTools: 2, capFrom: "request" });
    // a view that fits says nothing of a cap
    expect(compileToolView(registry, PEOPLE, person).omitted).toBeUndefined();
  });

  it("is deterministic: the same tools in any order give the same view", () => {
    const a = compileToolView(many, PEOPLE, person, { maxTools: 7 });
    const b = compileToolView([...many].reverse(), PEOPLE, person, { maxTools: 7 });
    expect(b).toEqual(a);
  });
});
