import { describe, expect, it } from "vitest";
import { silentLogger, type Bus } from "@warden/bus";
import { PolicyDocumentSchema } from "@warden/contracts";
import type { ExecutableTool, ToolContext } from "@warden/executor";
import { supportDeskPolicy } from "./policy.js";
import { bigOutput } from "./tools/demo.js";
import { SUPPORT_DESK_DOMAINS, supportDeskTools } from "./tools.js";

// descriptors and pure handlers only: the bus is never touched here
const tools = supportDeskTools({} as Bus);
const all = SUPPORT_DESK_DOMAINS.flatMap((d) => tools[d]);
const byName = new Map(all.map((t) => [t.descriptor.name, t]));
const ctx = (): ToolContext => ({
  signal: new AbortController().signal,
  callId: "c1",
  principal: "alice",
  mode: "human",
  correlationId: "r1",
  attempt: 1,
  log: silentLogger(),
});

async function run(tool: ExecutableTool | undefined, args: unknown): Promise<unknown> {
  const prepared = tool!.prepare(args);
  if (!prepared.ok) throw new Error(prepared.message);
  return prepared.run(ctx());
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
    expect(byName.get("ticket.submit")?.descriptor).toMatchObject({ grade: "write", scopes: [] });
    expect(byName.get("customer.message")?.descriptor).toMatchObject({ grade: "send", openWorld: true });
    expect(byName.get("demo.slow")?.descriptor).toMatchObject({ grade: "read", timeoutMs: 200 });
    expect(byName.get("demo.big")?.descriptor).toMatchObject({ grade: "read", maxOutputBytes: 4 * 1024 * 1024 });
  });

  it("describe when to use them", () => {
    for (const t of all) expect(t.descriptor.description).toMatch(/^Use when /);
  });

  it("search the knowledge base, within the limit", async () => {
    const r = (await run(byName.get("kb.search"), { query: "refund", limit: 2 })) as { articles: { id: string }[] };
    expect(r.articles.map((a) => a.id).sort()).toEqual(["KB-001", "KB-002"]);
    expect(byName.get("kb.search")!.prepare({ query: "refund", limit: 21 }).ok).toBe(false);
  });

  it("fetch a session's turns and fail for a session that does not exist", async () => {
    const turns = (await run(byName.get("session.fetch"), { id: 1 })) as { role: string; text: string }[];
    expect(turns[0]).toMatchObject({ role: "customer" });
    expect(turns.every((t) => t.role === "customer" || t.role === "agent")).toBe(true);
    await expect(run(byName.get("session.fetch"), { id: 99 })).rejects.toThrow("no session 99");
  });

  it("make demo.fail throw, demo.slow stop when aborted, and demo.big about a megabyte", async () => {
    await expect(run(byName.get("demo.fail"), {})).rejects.toThrow(/always fails/);
    const controller = new AbortController();
    const prepared = byName.get("demo.slow")!.prepare({});
    if (!prepared.ok) throw new Error(prepared.message);
    const slow = prepared.run({ ...ctx(), signal: controller.signal });
    controller.abort();
    await expect(slow).rejects.toThrow(/abort/i);
    const bytes = JSON.stringify(bigOutput()).length;
    expect(bytes).toBeGreaterThan(1_000_000);
    expect(bytes).toBeLessThan(1_200_000);
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
