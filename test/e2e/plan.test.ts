import { describe, expect, it } from "vitest";
import { runPlan } from "@warden/sdk";
import { readOutbox } from "@warden/example-support-desk";
import { useTestWarden } from "../support/use-test-warden.js";

describe("a fixed plan", () => {
  const t = useTestWarden({ demo: true }, async (w) => ({
    client: await w.agent("support-bot"),
  }));

  it("chains results by tool and by position, skips a step whose input is undefined, and submits on its own", async () => {
    const result = await runPlan(
      [
        { tool: "session.fetch", buildInput: (ctx) => ({ id: (ctx.seed as { id: number }).id }) },
        {
          tool: "kb.search",
          buildInput: (ctx) => {
            const turns = ctx.byTool["session.fetch"]?.data as { role: string; text: string }[] | { turns: { role: string; text: string }[] };
            const list = Array.isArray(turns) ? turns : turns.turns;
            return { query: list.find((t) => t.role === "customer")!.text.split(" ").slice(0, 3).join(" "), limit: 3 };
          },
        },
        { tool: "ticket.fill", buildInput: () => undefined },
        {
          tool: "ticket.submit",
          buildInput: (ctx) => ({ title: "From plan", body: JSON.stringify(ctx.byStep[1]?.data ?? null).slice(0, 200), customerId: "C-plan" }),
        },
      ],
      { id: 1 },
      { client: t.client },
    );
    expect(result.ok).toBe(true);
    expect(result.steps.map((s) => s.status)).toEqual(["ran", "ran", "skipped", "ran"]);
    expect(result.steps[3]?.result?.status).toBe("succeeded");
  });

  it("stops early when stopIf says so", async () => {
    const result = await runPlan(
      [
        { tool: "kb.search", input: { query: "zzzz-nothing-matches" } },
        { tool: "ticket.submit", input: { title: "x", body: "y", customerId: "C-stop" } },
      ],
      {},
      { client: t.client },
    );
    expect(result.steps[1]?.status).toBe("ran");
    const stopped = await runPlan(
      [
        { tool: "kb.search", input: { query: "zzzz-nothing-matches" }, stopIf: () => true },
        { tool: "ticket.submit", input: { title: "x", body: "y", customerId: "C-stop2" } },
      ],
      {},
      { client: t.client },
    );
    expect(stopped.stoppedBy).toBe("stopIf");
    expect(stopped.steps[1]?.status).toBe("not_run");
  });

  it("goes on after a failed step over the real services, and reports the plan not ok", async () => {
    const result = await runPlan(
      [
        { tool: "kb.serach", input: { query: "refund" } },
        { tool: "kb.search", input: { query: "refund" } },
      ],
      {},
      { client: t.client },
    );
    expect(result).toMatchObject({ ok: false, failed: [0] });
    expect(result.steps[0]?.result).toMatchObject({ ok: false, status: "rejected", error: { code: "UNKNOWN_TOOL" } });
    expect(result.steps[1]).toMatchObject({ status: "ran", result: { ok: true, status: "succeeded" } });
    const stopped = await runPlan([{ tool: "kb.serach", input: {} }, { tool: "kb.search", input: { query: "refund" } }], {}, { client: t.client, stopOnError: true });
    expect(stopped).toMatchObject({ ok: false, stoppedBy: "error", stoppedAt: 0 });
    expect(stopped.steps[1]?.status).toBe("not_run");
  });

  it("blocks its send step with requiresConfirm and never sends", async () => {
    const result = await runPlan(
      [
        { tool: "kb.search", input: { query: "refund" } },
        { tool: "customer.message", input: { customerId: "C-planned-send", text: "Your refund is on its way" } },
        { tool: "ticket.submit", input: { title: "after", body: "after", customerId: "C-after" } },
      ],
      {},
      { client: t.client },
    );
    expect(result.ok).toBe(false);
    expect(result.stoppedBy).toBe("requires_confirm");
    expect(result.steps[1]?.result).toMatchObject({ status: "awaiting_approval", requiresConfirm: true });
    expect(result.steps[2]?.status).toBe("not_run");
    expect((await readOutbox(t.w.bus)).filter((m) => m.customerId === "C-planned-send")).toHaveLength(0);
  });
});
