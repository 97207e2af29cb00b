import { describe, expect, it } from "vitest";
import { undoCallIdOf, type ToolArgsValidated, type ToolCallFinished, type ToolCallRequested } from "@warden/contracts/events";
import { syntheticCall } from "@warden/testing";
import { checkCompensation, type CompensatedCall } from "./check-compensation.js";

const UNDO = { tool: "kb.unpin", args: { article: "A-1", first: ["result of c1"] } };

function original(outcome: "succeeded" | "failed" = "succeeded", undo: typeof UNDO | null = UNDO): CompensatedCall {
  const events = syntheticCall({ callId: "c1", outcome, tool: "kb.pin", grade: "write", principal: "bot", args: { article: "A-1" } });
  const finished = events.find((e) => e.type === "ToolCallFinished") as ToolCallFinished;
  return {
    validated: events.find((e) => e.type === "ToolArgsValidated") as ToolArgsValidated,
    outcome: undo === null || outcome === "failed" ? finished : { ...finished, data: { ...finished.data, undo } },
  };
}

function undo(o: { callId?: string; principal?: string; args?: Record<string, unknown> } = {}): ToolCallRequested {
  return {
    v: 1, type: "ToolCallRequested", eventId: "e-undo", callId: o.callId ?? undoCallIdOf(o.principal ?? "bot", "kb", "c1"), domain: "kb", tool: "kb.unpin", principal: o.principal ?? "bot", mode: "human",
    ts: "2030-01-01T00:00:01.000Z", causationId: null, causeHash: null, correlationId: "run",
    data: { args: (o.args ?? { article: "A-1", first: ["result of c1"] }) as never, scope: null, flags: {}, compensates: { callId: "c1", domain: "kb" } },
  };
}

describe("checkCompensation", () => {
  it("accepts the undo the tool declares: its call id, its requester, the compensation's tool and exactly its args", () => {
    expect(checkCompensation(undo(), "kb.unpin", original())).toEqual({ ok: true, value: undefined });
  });

  it("refuses every other undo with NOT_UNDOABLE, saying why", () => {
    const why = (r: ReturnType<typeof checkCompensation>) => (r.ok ? "accepted" : `${r.error.code}: ${r.error.message}`);
    expect(why(checkCompensation(undo({ callId: "c1-again" }), "kb.unpin", original()))).toContain(`call id ${undoCallIdOf("bot", "kb", "c1")}, not c1-again`);
    expect(why(checkCompensation(undo({ principal: "other" }), "kb.unpin", original()))).toMatch(/no call kb\/c1 of other to undo/);
    expect(why(checkCompensation(undo(), "kb.unpin", { ...original(), validated: undefined }))).toMatch(/no call kb\/c1 of bot/);
    expect(why(checkCompensation(undo(), "kb.unpin", { ...original(), outcome: undefined }))).toMatch(/has not finished/);
    expect(why(checkCompensation(undo(), "kb.unpin", original("failed")))).toMatch(/did not succeed \(HANDLER_ERROR\)/);
    expect(why(checkCompensation(undo(), "kb.delete", original()))).toMatch(/is undone by kb.unpin, not kb.delete/);
    expect(why(checkCompensation(undo({ args: { article: "A-2", first: ["result of c1"] } }), "kb.unpin", original()))).toMatch(/must call kb.unpin with \{"article":"A-1"/);
    expect(why(checkCompensation(undo(), "kb.unpin", original("succeeded", null)))).toMatch(/kb.pin@1.0.0 declares no compensation/);
  });
});
