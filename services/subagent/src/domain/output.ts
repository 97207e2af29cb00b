import { z } from "zod";
import { ArtifactRefSchema, CallStatusSchema, type ArtifactRef, type ToolResult } from "@warden/contracts/events";
import { ErrorCodeSchema, type WardenError } from "@warden/contracts/errors";
import { type AgentBudget } from "@warden/contracts/policy";
import { STOP_REASONS, type StopReason, type Usage } from "./budget-meter.js";

/** One call the model asked for: run as a child call (callId), or refused before publishing (callId null). */
export const ChildCallRecordSchema = z.object({
  callId: z.string().nullable(),
  tool: z.string(),
  status: z.union([CallStatusSchema, z.literal("refused")]),
  ok: z.boolean(),
  error: z.object({ code: ErrorCodeSchema, message: z.string() }).optional(),
  approvalId: z.string().optional(),
});
export type ChildCallRecord = z.infer<typeof ChildCallRecordSchema>;

/** A subagent's ToolCallFinished output. */
export const SubagentOutputSchema = z.object({
  summary: z.string(),
  /** The model's final answer; on a partial result, the last text it wrote (or null). */
  answer: z.string().nullable(),
  childCalls: z.array(ChildCallRecordSchema),
  artifacts: z.array(ArtifactRefSchema),
  usage: z.object({ turns: z.int(), toolCalls: z.int(), tokens: z.int(), ms: z.number() }),
  stoppedBy: z.enum(STOP_REASONS),
});
export type SubagentOutput = z.infer<typeof SubagentOutputSchema>;

export function childCallOf(tool: string, result: ToolResult): ChildCallRecord {
  return {
    callId: result.callId,
    tool,
    status: result.status,
    ok: result.ok,
    ...(result.error === undefined ? {} : { error: { code: result.error.code, message: result.error.message } }),
    ...(result.approvalId === undefined ? {} : { approvalId: result.approvalId }),
  };
}

export function refusedCallOf(tool: string, error: WardenError): ChildCallRecord {
  return { callId: null, tool, status: "refused", ok: false, error: { code: error.code, message: error.message } };
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** One line a caller (or its model) reads first: how the run ended and what it cost. */
export function summaryOf(stoppedBy: StopReason, usage: Usage, budget: AgentBudget, childCalls: readonly ChildCallRecord[]): string {
  const pending = childCalls.filter((c) => c.status === "awaiting_approval" || (c.status === "pending" && c.approvalId !== undefined)).length;
  const refused = childCalls.filter((c) => c.status === "refused").length;
  const spent = `${plural(usage.turns, "turn")}, ${plural(usage.toolCalls, "tool call")}, ${plural(usage.tokens, "token")}, ${usage.ms} ms`;
  const notes = [pending > 0 ? `${pending} waiting for approval` : "", refused > 0 ? `${refused} refused` : ""].filter(Boolean);
  const tail = `${spent}${notes.length > 0 ? `; ${notes.join(", ")}` : ""}`;
  switch (stoppedBy) {
    case "answer":
      return `answered after ${tail}`;
    case "turns":
      return `partial result: the turn budget (${plural(budget.maxTurns, "turn")}) ran out before a final answer (${tail})`;
    case "toolCalls":
      return `partial result: the tool-call budget (${plural(budget.maxToolCalls, "call")}) is spent and the model asked for more (${tail})`;
    case "tokens":
      return `partial result: the token budget (${plural(budget.maxTokens, "token")}) is spent (${tail})`;
    case "time":
      return `partial result: the time budget (${budget.timeoutMs} ms) ran out (${tail})`;
  }
}

export interface OutputParts {
  readonly stoppedBy: StopReason;
  readonly answer: string | null;
  readonly usage: Usage;
  readonly budget: AgentBudget;
  readonly childCalls: readonly ChildCallRecord[];
  readonly artifacts: readonly ArtifactRef[];
}

/** Members in this order: a preview of a large output (object store) keeps the first ones. */
export function subagentOutput(p: OutputParts): SubagentOutput {
  return {
    stoppedBy: p.stoppedBy,
    usage: p.usage,
    summary: summaryOf(p.stoppedBy, p.usage, p.budget, p.childCalls),
    answer: p.answer,
    childCalls: [...p.childCalls],
    artifacts: [...p.artifacts],
  };
}

const NestedUsageSchema = z.object({ usage: z.object({ toolCalls: z.int().nonnegative(), tokens: z.int().nonnegative() }) });

/** What a nested subagent spent, read from its output (or the preview of it). */
export function usageOfOutput(data: unknown): { toolCalls: number; tokens: number } | undefined {
  const parsed = NestedUsageSchema.safeParse(data);
  return parsed.success ? parsed.data.usage : undefined;
}
