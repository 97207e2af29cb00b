import { describe, expect, it } from "vitest";
import { ToolViewQuerySchema, type ToolRecord } from "@warden/contracts/descriptor";
import { EMPTY_POLICY_DOCUMENT, PolicyDocumentSchema } from "@warden/contracts/policy";
import { record } from "../test-support/fixtures.js";
import { compileToolView } from "./compile-tool-view.js";
import { intentTerms, rankCandidates, scoreTool, termsOf } from "./resolve-intent.js";

const obj = { type: "object", properties: {} } as unknown as Record<string, never>;
const sideEffects = "Use when the change is wanted; it changes what others see later.";
const tools: ToolRecord[] = [
  record({ name: "kb.search", title: "Search the knowledge base", description: "Use when you need articles that answer a customer's question about refunds, orders or accounts.", inputSchema: obj }),
  record({ name: "billing.invoice_lookup", title: "Look up an invoice", description: "Use when the customer quotes an invoice number and asks about its amount or status.", inputSchema: obj }),
  record({ name: "billing.refund", title: "Refund an invoice", grade: "write", description: `Use when an invoice must be refunded. ${sideEffects}`, inputSchema: obj }),
  record({ name: "customer.message", title: "Message a customer", grade: "send", openWorld: true, description: `Use when the customer must be told about a refund. ${sideEffects}`, inputSchema: obj }),
];
const q = (mode: "llm" | "human", principal = "agent-1") => ToolViewQuerySchema.parse({ principal, mode });
const PEOPLE = PolicyDocumentSchema.parse({ version: "p1", principals: { alice: { kind: "human" } }, llm: { showWrite: ["billing.refund"] } });

describe("resolving an intent into tools", () => {
  it("takes the intent's own words, less the ones that name no tool", () => {
    expect(intentTerms("Refund the customer's last INVOICE, please")).toEqual(["refund", "customer", "last", "invoice", "please"]);
    expect(termsOf({ goal: "refund", task: "find the invoice", target: "INV-7" })).toEqual(["refund", "find", "invoice", "inv"]);
  });

  it("scores name over title over description, says why, and drops a tool the words do not touch", () => {
    const intent = { goal: "look up the invoice amount" };
    const lookup = scoreTool(tools[1]!.descriptor, intent, termsOf(intent));
    expect(lookup).toEqual({ name: "billing.invoice_lookup", version: "1.0.0", grade: "read", level: "L0", score: 3 * 2 + 2 * 2 + 2, reasons: ["name matches look, invoice", "title matches look, invoice", "description matches invoice, amount"] });
    expect(scoreTool(tools[0]!.descriptor, { goal: "delete the cluster" }, termsOf({ goal: "delete the cluster" }))).toBeUndefined();
  });

  it("narrows by domain and grade before it ranks", () => {
    const intent = { goal: "refund", domain: "billing", grade: "write" as const };
    expect(scoreTool(tools[0]!.descriptor, intent, termsOf(intent))).toBeUndefined();
    expect(scoreTool(tools[2]!.descriptor, intent, termsOf(intent))?.reasons).toEqual(["name matches refund", "title matches refund", "description matches refund", "domain billing as asked", "grade write as asked"]);
  });

  it("ranks a tool that declares the action type asked for first, even without a word in common, and drops tools above the level asked for", () => {
    const patch = record({ name: "kb.fix_article", title: "Fix an article", grade: "write", actionType: "patch", description: `Use when an article has a typo. ${sideEffects}`, inputSchema: obj }).descriptor;
    const wipe = record({ name: "kb.wipe", title: "Wipe the knowledge base", grade: "write", destructive: true, description: `Use when the knowledge base must be emptied. ${sideEffects}`, inputSchema: obj }).descriptor;
    const intent = { goal: "correct the knowledge base", actionType: "patch" as const };
    expect(scoreTool(patch, intent, termsOf(intent))).toMatchObject({ score: 4, level: "L2", actionType: "patch", reasons: ["action type patch as asked"] });
    const wiping = scoreTool(wipe, intent, termsOf(intent));
    // more words in common, yet ranked after the tool that does the kind of action asked for
    expect(wiping).toMatchObject({ score: 2 * 2 + 2, level: "L5" });
    expect(rankCandidates([wiping!, scoreTool(patch, intent, termsOf(intent))!], "patch").map((c) => c.name)).toEqual(["kb.fix_article", "kb.wipe"]);
    expect(rankCandidates([wiping!, scoreTool(patch, intent, termsOf(intent))!]).map((c) => c.name)).toEqual(["kb.wipe", "kb.fix_article"]);
    const capped = { goal: "article in the knowledge base", maxLevel: "L2" as const };
    expect(scoreTool(wipe, capped, termsOf(capped))).toBeUndefined();
    expect(scoreTool(patch, capped, termsOf(capped))?.reasons).toContain("level L2 within L2");
  });

  it("ranks the caller's own view only, best first, ties by name, capped, and lists the rest as not matching", () => {
    const view = compileToolView(tools, PEOPLE, q("llm"), { explain: true, intent: { goal: "refund the customer's invoice" }, limit: 2 });
    // a model never sees send: customer.message mentions a refund and is still no candidate
    expect(view.candidates?.map((c) => c.name)).toEqual(["billing.refund", "billing.invoice_lookup"]);
    expect(view.tools.map((t) => t.name)).toEqual(["billing.refund", "billing.invoice_lookup"]);
    expect(view.hidden.find((h) => h.name === "kb.search")).toMatchObject({ reason: "not_matching_intent", ruleIds: ["intent.resolve"] });
    expect(view.hidden.find((h) => h.name === "customer.message")?.reason).toBe("send_never_listed_for_llm");
    // the same intent ranks the same way every time
    expect(compileToolView(tools, PEOPLE, q("llm"), { intent: { goal: "refund the customer's invoice" }, limit: 2 }).candidates).toEqual(view.candidates);
    expect(compileToolView(tools, EMPTY_POLICY_DOCUMENT, q("llm"), { intent: { goal: "nothing matches zzz" } })).toMatchObject({ tools: [], candidates: [] });
  });
});
