import { newId, type ToolResult } from "@warden/contracts/events";
import type { CallOptions } from "./agent-client.js";

/** What a plan step sees: the seed and every earlier result, by tool and by position. */
export interface PlanContext<Seed> {
  readonly seed: Seed;
  readonly byTool: Readonly<Record<string, ToolResult>>;
  /** One entry per earlier step; undefined where a step was skipped. */
  readonly byStep: readonly (ToolResult | undefined)[];
}

/** One step of a plan: a tool and its args, fixed or built from earlier results. */
export interface PlanStep<Seed> {
  /** A name for the step in the {@link PlanResult}'s reports. */
  readonly id?: string;
  readonly tool: string;
  /** Static args. @default {} */
  readonly input?: unknown;
  /** Args built from earlier results; undefined skips the step. Wins over `input`. */
  readonly buildInput?: (ctx: PlanContext<Seed>) => unknown;
  /** Ends the plan after this step when true; it sees failed results too (`result.ok` false). */
  readonly stopIf?: (result: ToolResult, ctx: PlanContext<Seed>) => boolean;
  /** Ends the plan if this step fails (overrides the plan's `stopOnError`). */
  readonly stopOnError?: boolean;
}

export type Plan<Seed> = readonly PlanStep<Seed>[] | { readonly steps: readonly PlanStep<Seed>[] };

/** The one thing a plan needs from a client; an AgentClient is one. */
export interface PlanClient {
  call(tool: string, args: unknown, opts?: CallOptions): Promise<ToolResult>;
}

/** Options of {@link runPlan}. */
export interface RunPlanOptions {
  /** Who asks for the calls: an `AgentClient` (or anything with its `call`). */
  readonly client: PlanClient;
  /** Feature flags for every step. @default {} */
  readonly flags?: Readonly<Record<string, boolean>>;
  /** The scope of every step. @default null */
  readonly scope?: string | null;
  /** The run every step belongs to (budgets count per run). @default a new id */
  readonly runId?: string;
  /**
   * End the plan at the first failed step. By default a failed step is reported and the plan
   * goes on (a later step's `buildInput` sees the failure in `ctx` and may skip itself, or a
   * `stopIf` may end the plan). @default false
   */
  readonly stopOnError?: boolean;
}

export type PlanStepStatus = "ran" | "skipped" | "not_run";

export interface PlanStepReport {
  readonly id?: string;
  readonly tool: string;
  readonly status: PlanStepStatus;
  readonly result?: ToolResult;
}

export type PlanStopReason = "stopIf" | "error" | "requires_confirm";

export interface PlanResult {
  /** True when no step failed and none waits for a person (a stopIf may have ended it early). */
  readonly ok: boolean;
  /** The indexes of the steps that ran and failed, in order. */
  readonly failed: number[];
  readonly steps: PlanStepReport[];
  /** Index of the step that ended the plan early. */
  readonly stoppedAt?: number;
  readonly stoppedBy?: PlanStopReason;
  /** Set when a step waits for a person: it has not run, and neither has anything after it. */
  readonly requiresConfirm?: boolean;
  readonly approvalId?: string;
  readonly runId: string;
}

/**
 * Runs a fixed plan in `plan` mode under one run id. A failed step is recorded (`failed`, its
 * result carries the error code) and the plan goes on, as the source's orchestrator does, unless
 * `stopOnError` (the plan's or the step's) or the step's `stopIf` ends it (`stoppedBy: "error"` /
 * `"stopIf"`); `ok` is "no step failed". A step that needs approval (any `send`) comes back
 * `awaiting_approval` and stops the plan before it runs (`requiresConfirm: true` with its
 * `approvalId`): what follows may depend on it. Never throws for a tool's failure.
 *
 * @param seed - what the first steps build their args from (`ctx.seed`).
 * @example
 * ```ts
 * const plan = await runPlan(
 *   [
 *     { tool: "session.fetch", buildInput: (ctx) => ({ id: ctx.seed.id }) },
 *     { tool: "kb.search", buildInput: (ctx) => (ctx.byTool["session.fetch"]?.ok ? { query: "refund" } : undefined) },
 *     { tool: "customer.message", input: { customerId: "C-7", text: "…" } },
 *   ],
 *   { id: 42 },
 *   { client: agent },
 * );
 * if (plan.requiresConfirm) console.log(`waiting for approval ${plan.approvalId}`);
 * ```
 */
export async function runPlan<Seed>(plan: Plan<Seed>, seed: Seed, opts: RunPlanOptions): Promise<PlanResult> {
  const steps = "steps" in plan ? plan.steps : plan;
  const runId = opts.runId ?? newId();
  const byTool: Record<string, ToolResult> = {};
  const byStep: (ToolResult | undefined)[] = [];
  const reports: PlanStepReport[] = [];
  const ctx: PlanContext<Seed> = { seed, byTool, byStep };
  const callOpts: CallOptions = { mode: "plan", runId, flags: opts.flags ?? {}, scope: opts.scope ?? null, wait: false };

  const failed: number[] = [];
  const stop = (at: number, by: PlanStopReason, result: ToolResult): PlanResult => {
    for (const s of steps.slice(at + 1)) reports.push(report(s, "not_run"));
    const confirm = by === "requires_confirm" ? { requiresConfirm: true, ...(result.approvalId ? { approvalId: result.approvalId } : {}) } : {};
    return { ok: failed.length === 0 && by === "stopIf", failed, steps: reports, stoppedAt: at, stoppedBy: by, ...confirm, runId };
  };

  for (const [i, step] of steps.entries()) {
    const args = step.buildInput ? step.buildInput(ctx) : step.input;
    if (args === undefined && step.buildInput) {
      byStep.push(undefined);
      reports.push(report(step, "skipped"));
      continue;
    }
    const result = await opts.client.call(step.tool, args ?? {}, callOpts);
    byStep.push(result);
    byTool[step.tool] = result;
    reports.push(report(step, "ran", result));
    if (result.status === "awaiting_approval") return stop(i, "requires_confirm", result);
    if (!result.ok) failed.push(i);
    if (step.stopIf?.(result, ctx)) return stop(i, "stopIf", result);
    if (!result.ok && (step.stopOnError ?? opts.stopOnError ?? false)) return stop(i, "error", result);
  }
  return { ok: failed.length === 0, failed, steps: reports, runId };
}

function report<Seed>(step: PlanStep<Seed>, status: PlanStepStatus, result?: ToolResult): PlanStepReport {
  return { ...(step.id === undefined ? {} : { id: step.id }), tool: step.tool, status, ...(result ? { result } : {}) };
}
