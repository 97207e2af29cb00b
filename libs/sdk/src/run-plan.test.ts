import { describe, expect, it } from "vitest";
import { type ToolResult } from "@warden/contracts/events";
import { wardenError } from "@warden/contracts/errors";
import type { CallOptions } from "./agent-client.js";
import { runPlan, type PlanClient } from "./run-plan.js";

interface Seen {
  tool: string;
  args: unknown;
  opts: CallOptions | undefined;
}

/** A client whose answers are scripted per tool; it records what it was asked. */
function scriptedClient(answers: Record<string, (args: unknown) => Omit<ToolResult, "callId">>): PlanClient & { seen: Seen[] } {
  const seen: Seen[] = [];
  return {
    seen,
    async call(tool, args, opts) {
      seen.push({ tool, args, opts });
      const answer = answers[tool];
      if (!answer) return { callId: `c${seen.length}`, ok: false, status: "rejected", error: wardenError("UNKNOWN_TOOL", tool) };
      return { callId: `c${seen.length}`, ...answer(args) };
    },
  };
}

const succeed = (data: ToolResult["data"]) => () => ({ ok: true, status: "succeeded" as const, data });

describe("runPlan", () => {
  it("chains results by tool and by position and runs every step in plan mode under one run id", async () => {
    const client = scriptedClient({
      "session.fetch": succeed({ turns: [{ role: "customer", text: "refund please" }] }),
      "kb.search": (args) => ({ ok: true, status: "succeeded", data: { query: (args as { query: string }).query, hits: 1 } }),
      "ticket.submit": succeed({ ticketId: "T-1" }),
    });
    const result = await runPlan(
      [
        { id: "fetch", tool: "session.fetch", input: { id: 7 } },
        { tool: "kb.search", buildInput: (ctx) => ({ query: (ctx.byTool["session.fetch"]?.data as { turns: { text: string }[] }).turns[0]!.text }) },
        { tool: "ticket.submit", buildInput: (ctx) => ({ title: "Refund", body: JSON.stringify(ctx.byStep[1]?.data), customerId: ctx.seed.customerId }) },
      ],
      { customerId: "cust-9" },
      { client, runId: "run-42", flags: { beta: true }, scope: "ticket_page" },
    );
    expect(result).toMatchObject({ ok: true, runId: "run-42" });
    expect(result.stoppedBy).toBeUndefined();
    expect(result.steps.map((s) => [s.tool, s.status])).toEqual([
      ["session.fetch", "ran"],
      ["kb.search", "ran"],
      ["ticket.submit", "ran"],
    ]);
    expect(result.steps[0]?.id).toBe("fetch");
    expect(client.seen[1]?.args).toEqual({ query: "refund please" });
    expect(client.seen[2]?.args).toEqual({ title: "Refund", body: JSON.stringify({ query: "refund please", hits: 1 }), customerId: "cust-9" });
    for (const s of client.seen) {
      expect(s.opts).toMatchObject({ mode: "plan", runId: "run-42", flags: { beta: true }, scope: "ticket_page", wait: false });
    }
  });

  it("skips a step whose buildInput returns undefined and keeps positions aligned", async () => {
    const client = scriptedClient({ "kb.search": succeed([]), "ticket.fill": succeed({ filled: true }) });
    const result = await runPlan(
      {
        steps: [
          { tool: "kb.search", input: { query: "x" } },
          { tool: "ticket.fill", buildInput: () => undefined },
          { tool: "ticket.fill", buildInput: (ctx) => (ctx.byStep[1] === undefined ? { ticketId: "T", fields: {} } : undefined) },
        ],
      },
      null,
      { client },
    );
    expect(result.ok).toBe(true);
    expect(result.steps.map((s) => s.status)).toEqual(["ran", "skipped", "ran"]);
    expect(client.seen.map((s) => s.tool)).toEqual(["kb.search", "ticket.fill"]);
    expect(result.runId).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it("stops early when stopIf says so and marks the rest not run", async () => {
    const client = scriptedClient({ "kb.search": succeed({ hits: 0 }), "ticket.submit": succeed({}) });
    const result = await runPlan(
      [
        { tool: "kb.search", input: { query: "x" }, stopIf: (r) => (r.data as { hits: number }).hits === 0 },
        { tool: "ticket.submit", input: {} },
      ],
      null,
      { client },
    );
    expect(result).toMatchObject({ ok: true, stoppedAt: 0, stoppedBy: "stopIf" });
    expect(result.steps.map((s) => s.status)).toEqual(["ran", "not_run"]);
    expect(client.seen).toHaveLength(1);
  });

  it("goes on after a failed step, reports it, and is not ok", async () => {
    const client = scriptedClient({ "kb.search": succeed([]) });
    const result = await runPlan(
      [
        { tool: "kb.serach", input: {} },
        { tool: "kb.search", buildInput: (ctx) => (ctx.byStep[0]?.ok === false ? { query: "fallback" } : undefined) },
      ],
      null,
      { client },
    );
    expect(result).toMatchObject({ ok: false, failed: [0] });
    expect(result.stoppedBy).toBeUndefined();
    expect(result.steps[0]?.result?.error?.code).toBe("UNKNOWN_TOOL");
    expect(result.steps[1]).toMatchObject({ status: "ran", result: { ok: true } });
    expect(client.seen.map((s) => s.args)).toEqual([{}, { query: "fallback" }]);
  });

  it("stops at a failed step with stopOnError (the plan's or the step's), or when its stopIf says so on the failure", async () => {
    const plan = [
      { tool: "kb.serach", input: {} },
      { tool: "kb.search", input: { query: "x" } },
    ];
    const byPlan = await runPlan(plan, null, { client: scriptedClient({ "kb.search": succeed([]) }), stopOnError: true });
    expect(byPlan).toMatchObject({ ok: false, failed: [0], stoppedAt: 0, stoppedBy: "error" });
    expect(byPlan.steps[1]?.status).toBe("not_run");
    const byStep = await runPlan([{ ...plan[0]!, stopOnError: true }, plan[1]!], null, { client: scriptedClient({ "kb.search": succeed([]) }) });
    expect(byStep).toMatchObject({ ok: false, stoppedBy: "error" });
    const notThisStep = await runPlan([{ ...plan[0]!, stopOnError: false }, plan[1]!], null, { client: scriptedClient({ "kb.search": succeed([]) }), stopOnError: true });
    expect(notThisStep).toMatchObject({ ok: false, failed: [0] });
    expect(notThisStep.steps[1]?.status).toBe("ran");
    const byStopIf = await runPlan([{ ...plan[0]!, stopIf: (r) => !r.ok }, plan[1]!], null, { client: scriptedClient({ "kb.search": succeed([]) }) });
    expect(byStopIf).toMatchObject({ ok: false, failed: [0], stoppedBy: "stopIf" });
  });

  it("stops at a step that needs approval with requiresConfirm, and runs nothing after it", async () => {
    const client = scriptedClient({
      "kb.search": succeed([]),
      "customer.message": () => ({
        ok: false,
        status: "awaiting_approval",
        requiresConfirm: true,
        approvalId: "ap-1",
        error: wardenError("CONFIRMATION_REQUIRED", "needs a human"),
      }),
      "ticket.submit": succeed({}),
    });
    const result = await runPlan(
      [
        { tool: "kb.search", input: { query: "x" } },
        { tool: "customer.message", input: { customerId: "c", text: "hi" } },
        { tool: "ticket.submit", input: {} },
      ],
      null,
      { client },
    );
    expect(result).toMatchObject({ ok: false, stoppedAt: 1, stoppedBy: "requires_confirm", requiresConfirm: true, approvalId: "ap-1" });
    expect(result.steps.map((s) => s.status)).toEqual(["ran", "ran", "not_run"]);
    expect(client.seen.map((s) => s.tool)).toEqual(["kb.search", "customer.message"]);
  });
});
