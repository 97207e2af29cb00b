import type { AgentBudget } from "@warden/contracts/policy";

/** Which budget ended a run, or `answer` when the model gave its final answer. */
export const STOP_REASONS = ["answer", "turns", "toolCalls", "tokens", "time"] as const;
export type StopReason = (typeof STOP_REASONS)[number];

export interface Usage {
  readonly turns: number;
  readonly toolCalls: number;
  readonly tokens: number;
  readonly ms: number;
}

/** A nested subagent must be done this long before our own deadline. */
export const NESTED_TIME_MARGIN_MS = 1_000;
/** Less time than this left: no new model turn or child call is started. */
export const MIN_USEFUL_MS = 100;

/**
 * What a run has spent against its budget. Time runs from the call's ToolCallStarted, as the
 * policy measures it. A nested subagent's spending is added to ours: it spends our budget.
 */
export class BudgetMeter {
  private turns = 0;
  private toolCalls = 0;
  private tokens = 0;

  constructor(
    readonly budget: AgentBudget,
    private readonly startedAtMs: number,
  ) {}

  get deadlineMs(): number {
    return this.startedAtMs + this.budget.timeoutMs;
  }

  remainingMs(nowMs: number): number {
    return Math.max(0, this.deadlineMs - nowMs);
  }

  toolCallsLeft(): number {
    return Math.max(0, this.budget.maxToolCalls - this.toolCalls);
  }

  tokensSpent(): boolean {
    return this.tokens >= this.budget.maxTokens;
  }

  /** The budget that forbids another model turn, if any. */
  beforeTurn(nowMs: number): StopReason | undefined {
    if (this.turns >= this.budget.maxTurns) return "turns";
    if (this.tokensSpent()) return "tokens";
    if (this.remainingMs(nowMs) < MIN_USEFUL_MS) return "time";
    return undefined;
  }

  startTurn(): number {
    this.turns += 1;
    return this.turns;
  }

  addTokens(n: number): void {
    this.tokens += Math.max(0, n);
  }

  addToolCall(): void {
    this.toolCalls += 1;
  }

  /** What a nested subagent spent (its own tool calls and tokens count against ours). */
  addNested(usage: Pick<Usage, "toolCalls" | "tokens">): void {
    this.toolCalls += Math.max(0, usage.toolCalls);
    this.tokens += Math.max(0, usage.tokens);
  }

  /**
   * The most a nested subagent may be given now: what we have left once the call to it is
   * counted, and nothing beyond what its caller asked. Undefined when too little is left.
   */
  nestedBudget(nowMs: number, asked: Partial<AgentBudget> | undefined): Partial<AgentBudget> | undefined {
    const timeoutMs = this.remainingMs(nowMs) - NESTED_TIME_MARGIN_MS;
    const maxTokens = this.budget.maxTokens - this.tokens;
    if (timeoutMs < MIN_USEFUL_MS || maxTokens < 1) return undefined;
    const lower = (mine: number, theirs: number | undefined) => (theirs === undefined ? mine : Math.min(mine, theirs));
    return {
      ...(asked?.maxTurns === undefined ? {} : { maxTurns: asked.maxTurns }),
      maxToolCalls: lower(Math.max(0, this.toolCallsLeft() - 1), asked?.maxToolCalls),
      maxTokens: lower(maxTokens, asked?.maxTokens),
      timeoutMs: lower(timeoutMs, asked?.timeoutMs),
    };
  }

  usage(nowMs: number): Usage {
    return { turns: this.turns, toolCalls: this.toolCalls, tokens: this.tokens, ms: Math.max(0, nowMs - this.startedAtMs) };
  }
}
