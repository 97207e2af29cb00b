import { describe, expect, it } from "vitest";
import type { Bus } from "@warden/bus";
import { levelOf } from "@warden/contracts/descriptor";
import { PolicyDocumentSchema } from "@warden/contracts/policy";
import type { ExecutableTool } from "@warden/executor";
import { runTool } from "@warden/executor/testing";
import { supportDeskPolicy } from "./policy.js";
import { SUPPORT_DESK_DOMAINS, supportDeskTools } from "./tools.js";

// descriptors and pure handlers only: the bus is never touched here
const tools = supportDeskTools({} as Bus);
const all = SUPPORT_DESK_DOMAINS.flatMap((d) => tools[d]);
const byName = new Map(all.map((t) => [t.descriptor.name, t]));

function tool(name: string): ExecutableTool {
  const t = byName.get(name);
  if (t === undefined) throw new Error(`no tool ${name}`);
  return t;
}

describe("the support desk's tools", () => {
  it("are exactly the demo's tools, each in its own domain's executor", () => {
    expect(all.map((t) => t.descriptor.name).sort()).toEqual([
      "customer.message",
      "demo.big",
      "demo.fail",
      "demo.slow",
      "kb.reindex",
      "kb.search",
      "session.fetch",
      "ticket.fill",
      "ticket.submit",
      "ticket.withdraw",
    ]);
    for (const d of SUPPORT_DESK_DOMAINS) for (const t of tools[d]) expect(t.domain).toBe(d);
  });

  it("carry the grades, flags, scopes and limits the demo relies on", () => {
    expect(byName.get("kb.search")?.descriptor).toMatchObject({ grade: "read" });
    expect(byName.get("kb.search")?.descriptor.inputSchema).toMatchObject({
      properties: { query: { type: "string" }, limit: { type: "integer", minimum: 1, maximum: 20 } },
      required: ["query"],
    });
    expect(byName.get("session.fetch")?.descriptor.inputSchema).toMatchObject({ properties: { id: { type: "integer" } }, required: ["id"] });
    expect(byName.get("kb.reindex")?.descriptor).toMatchObject({ grade: "read", featureFlag: "kbAdmin", idempotent: true });
    expect(byName.get("ticket.fill")?.descriptor).toMatchObject({ grade: "write", scopes: ["ticket_page"] });
    expect(byName.get("ticket.submit")?.descriptor).toMatchObject({ grade: "write", scopes: [], compensation: { tool: "ticket.withdraw" } });
    expect(byName.get("ticket.withdraw")?.descriptor).toMatchObject({ grade: "write", idempotent: true });
    expect(byName.get("customer.message")?.descriptor).toMatchObject({ grade: "send", openWorld: true });
    expect(byName.get("demo.slow")?.descriptor).toMatchObject({ grade: "read", timeoutMs: 200 });
    expect(byName.get("demo.big")?.descriptor).toMatchObject({ grade: "read", maxOutputBytes: 4 * 1024 * 1024 });
  });

  it("declare their action types, so `warden tools` shows each one's action and level (kb.reindex's is derived)", () => {
    const shown = Object.fromEntries(all.map((t) => [t.descriptor.name, [t.descriptor.actionType ?? "-", levelOf(t.descriptor)]]));
    expect(shown).toEqual({
      "customer.message": ["external_send", "L4"],
      "demo.big": ["read", "L0"],
      "demo.fail": ["read", "L0"],
      "demo.slow": ["read", "L0"],
      "kb.reindex": ["-", "L0"],
      "kb.search": ["search", "L0"],
      "session.fetch": ["read", "L0"],
      "ticket.fill": ["patch", "L2"],
      "ticket.submit": ["write", "L2"],
      "ticket.withdraw": ["patch", "L2"],
    });
  });

  it("give kb.search an output schema that its real results pass", async () => {
    expect(tool("kb.search").descriptor.outputSchema).toMatchObject({ required: ["articles"] });
    const r = await runTool(tool("kb.search"), { query: "password" });
    expect(r, JSON.stringify(r)).toMatchObject({ ok: true, output: { articles: [{ id: expect.any(String), score: expect.any(Number) }] } });
  });

  it("describe when to use them", () => {
    for (const t of all) expect(t.descriptor.description).toMatch(/^Use when /);
  });

  it("search the knowledge base, within the limit", async () => {
    const r = await runTool(tool("kb.search"), { query: "refund", limit: 2 });
    expect(r).toMatchObject({ ok: true, output: { articles: [{}, {}] } });
    const ids = r.ok ? (r.output as { articles: { id: string }[] }).articles.map((a) => a.id) : [];
    expect(ids.sort()).toEqual(["KB-001", "KB-002"]);
    expect(await runTool(tool("kb.search"), { query: "refund", limit: 21 })).toMatchObject({ ok: false, error: { code: "INVALID_ARGS" } });
  });

  it("fetch a session's turns and fail for a session that does not exist", async () => {
    const r = await runTool(tool("session.fetch"), { id: 1 });
    const turns = r.ok ? (r.output as { role: string; text: string }[]) : [];
    expect(turns[0]).toMatchObject({ role: "customer" });
    expect(turns.every((t) => t.role === "customer" || t.role === "agent")).toBe(true);
    expect(await runTool(tool("session.fetch"), { id: 99 })).toMatchObject({ ok: false, error: { code: "HANDLER_ERROR", message: "no session 99" } });
  });

  it("make demo.fail fail, demo.slow time out and stop when aborted, and demo.big an artifact of about a megabyte", async () => {
    expect(await runTool(tool("demo.fail"), {})).toMatchObject({ ok: false, error: { code: "HANDLER_ERROR", message: expect.stringMatching(/always fails/) } });
    expect(await runTool(tool("demo.slow"), {})).toMatchObject({ ok: false, error: { code: "TIMEOUT" } });
    const controller = new AbortController();
    const slow = runTool(tool("demo.slow"), {}, { signal: controller.signal, timeoutMs: 60_000 });
    controller.abort();
    expect(await slow).toMatchObject({ ok: false, error: { code: "HANDLER_ERROR", message: expect.stringMatching(/abort/i) } });
    const big = await runTool(tool("demo.big"), {});
    expect(big).toMatchObject({ ok: true, truncated: true });
    expect(big.outputBytes).toBeGreaterThan(1_000_000);
    expect(big.outputBytes).toBeLessThan(1_200_000);
  });
});

describe("the support desk's policy", () => {
  it("is a valid policy document with alice approving writes and sends, bob nothing, support-bot an agent", () => {
    expect(PolicyDocumentSchema.parse(supportDeskPolicy)).toEqual(supportDeskPolicy);
    expect(supportDeskPolicy.principals["alice"]).toEqual({ kind: "human", approves: ["write", "send"], scopes: ["tickets:write"] });
    expect(supportDeskPolicy.principals["bob"]).toEqual({ kind: "human", approves: [], scopes: [] });
    expect(supportDeskPolicy.principals["support-bot"]).toMatchObject({ kind: "agent" });
    expect(supportDeskPolicy.llm.showWrite).toEqual(["ticket.fill"]);
    expect(supportDeskPolicy.approvalTtlSeconds).toEqual({ write: 3600, send: 900 });
  });
});
