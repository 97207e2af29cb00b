import type { ChatCompletionMessage, ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type { Bus, Logger } from "@warden/bus";
import { toModelMessage, type ArtifactRef, type ToolResult } from "@warden/contracts/events";
import { wardenError, type WardenError } from "@warden/contracts/errors";
import { type Grade, type ToolView } from "@warden/contracts/descriptor";
import { effectiveAgentBudget, isAgentTool, subagentPrincipal } from "@warden/contracts/policy";
import { argsHash, type JsonObject } from "@warden/contracts/json";
import { ToolError, type ToolContext } from "@warden/executor";
import { createAgentClient, type AgentClient } from "@warden/sdk";
import { listSkills } from "@warden/skills";
import { callChild, childArgs } from "./child-call.js";
import { readRefs } from "./context-refs.js";
import type { SubagentDescriptor } from "./descriptor.js";
import { AgentArgsSchema, agentInputSchema, type AgentArgs } from "./domain/agent-input.js";
import { BudgetMeter, type StopReason } from "./domain/budget-meter.js";
import { openAiTools } from "./domain/openai-tools.js";
import { childCallOf, refusedCallOf, subagentOutput, usageOfOutput, type ChildCallRecord, type SubagentOutput } from "./domain/output.js";
import { initialMessages } from "./domain/prompt.js";
import { NO_SKILLS, runSkills, type RunSkills } from "./domain/run-skills.js";
import { vetToolCall, type ModelToolCall } from "./domain/vet-tool-call.js";
import type { OwnCall } from "./domain/view-event.js";
import { askModel } from "./ask-model.js";
import { notConfiguredError, type ModelClient } from "./model.js";
import { readOwnCall } from "./own-call.js";
import { compileTurnView } from "./turn-view.js";

export interface RunDeps {
  readonly bus: Bus;
  /** Undefined when no endpoint is configured: every run then ends with an error naming what to set. */
  readonly model: ModelClient | undefined;
  readonly defaultModel: string;
}

/**
 * Runs a subagent call: checks its args and endpoint, reads its own call from the stream, and
 * loops until a final answer or a spent budget. Failures of the endpoint or the bus are thrown
 * (the executor records them as the call's error); budgets end the run with a partial result.
 */
export async function runSubagent(deps: RunDeps, agent: SubagentDescriptor, grade: Grade, rawArgs: unknown, ctx: ToolContext): Promise<SubagentOutput> {
  const parsed = AgentArgsSchema.safeParse(rawArgs);
  if (!parsed.success) throw new ToolError(wardenError("INVALID_ARGS", `subagent args: ${parsed.error.issues[0]?.message ?? "invalid"}`));
  if (deps.model === undefined) throw new ToolError(notConfiguredError(agent.name));
  const own = await readOwnCall(deps.bus, ctx.callId);
  // the same reading of the budget as the policy's: the descriptor's ceiling, lowered by the args
  const budget = effectiveAgentBudget(agentInputSchema(agent.context, agent.budget), rawArgs as JsonObject) ?? agent.budget;
  // skills teach; what their scripts may do is still the view's and the policy's to say
  const skills = agent.skills?.length === 0 ? NO_SKILLS : runSkills(await listSkills(deps.bus), agent.skills, grade, parsed.data.task);
  if (skills.activated.length > 0) ctx.log.info({ skills: skills.activated.map((s) => `${s.name}@${s.version}`) }, "skills activated");
  const client = createAgentClient({ bus: deps.bus, principal: subagentPrincipal(agent.name), mode: "llm", runId: own.correlationId });
  try {
    const run = new SubagentRun(deps, deps.model, agent, own, new BudgetMeter(budget, own.startedAtMs), client, ctx, skills);
    return await run.loop(parsed.data);
  } finally {
    await client.close();
  }
}

class SubagentRun {
  private readonly messages: ChatCompletionMessageParam[] = [];
  private readonly childCalls: ChildCallRecord[] = [];
  private readonly artifacts: ArtifactRef[] = [];
  /**
   * The calls of this run that went to a person (an approval id came back), by tool and args: the
   * model asking for one again gets that call's state, and nothing is asked twice (a model's send
   * always waits for a person; asking again must not make a second one).
   */
  private readonly askedPerson = new Map<string, string>();
  private readonly log: Logger;
  private answer: string | null = null;

  constructor(
    private readonly deps: RunDeps,
    private readonly model: ModelClient,
    private readonly agent: SubagentDescriptor,
    private readonly own: OwnCall,
    private readonly meter: BudgetMeter,
    private readonly client: AgentClient,
    private readonly ctx: ToolContext,
    private readonly skills: RunSkills,
  ) {
    this.log = ctx.log;
  }

  async loop(args: AgentArgs): Promise<SubagentOutput> {
    const refs = args.refs === undefined ? [] : await readRefs(this.deps.bus, args.refs, this.own.correlationId);
    this.messages.push(...initialMessages(this.agent.instructions, this.meter.budget, args, refs, this.skills.prompt));
    const stoppedBy = await this.turns();
    return subagentOutput({
      stoppedBy,
      answer: this.answer,
      usage: this.meter.usage(Date.now()),
      budget: this.meter.budget,
      childCalls: this.childCalls,
      artifacts: this.artifacts,
    });
  }

  private async turns(): Promise<StopReason> {
    for (;;) {
      const stop = this.meter.beforeTurn(Date.now());
      if (stop !== undefined) return stop;
      const turn = this.meter.startTurn();
      const view = await compileTurnView(this.deps.bus, this.client, this.own, turn, this.agent.allowedTools, this.skills);
      const request = { model: this.agent.model ?? this.deps.defaultModel, messages: this.messages, tools: openAiTools(view.tools) };
      const reply = await askModel(this.model, request, this.meter, this.ctx.signal, turn);
      if (reply === "time") return "time";
      this.meter.addTokens(reply.tokens);
      this.messages.push(assistantParam(reply.message));
      const calls = toolCallsOf(reply.message);
      if (calls.length === 0) {
        this.answer = reply.message.content ?? "";
        return "answer";
      }
      if (reply.message.content) this.answer = reply.message.content;
      // the reply itself spent the token budget: nothing more runs on it
      if (this.meter.tokensSpent()) return "tokens";
      const toldBefore = this.meter.toolCallsLeft() === 0;
      for (const call of calls) {
        this.messages.push({ role: "tool", tool_call_id: call.id, content: await this.toolCall(call, view) });
      }
      this.log.debug({ turn, calls: calls.length, usage: this.meter.usage(Date.now()) }, "subagent turn done");
      // it was told the tool-call budget is spent and still asked for tools: stop rather than argue
      if (toldBefore) return "toolCalls";
      if (this.meter.remainingMs(Date.now()) <= 0) return "time";
    }
  }

  /** Vets one call the model made and runs it as a child call; the answer is the tool message. */
  private async toolCall(call: ModelToolCall, view: ToolView): Promise<string> {
    const vetted = vetToolCall(call, view, this.meter.toolCallsLeft(), this.meter.budget.maxToolCalls);
    if (vetted.kind === "refuse") {
      this.log.info({ tool: call.name, why: vetted.why }, "model tool call refused");
      return this.refuse(call.name, vetted.error);
    }
    const tool = vetted.tool;
    const same = `${tool} ${argsHash(vetted.args)}`;
    const asked = this.askedPerson.get(same);
    if (asked !== undefined) return this.askedAgain(tool, asked);
    if (vetted.unlisted) this.log.info({ tool }, "model asked for a send its view does not list: it waits for a person");
    if (this.meter.remainingMs(Date.now()) <= 0) {
      return this.refuse(call.name, wardenError("BUDGET_EXCEEDED", "the time budget is spent; no more tools run"));
    }
    const prepared = childArgs(this.meter, tool, vetted.args, Date.now());
    if (!prepared.ok) return this.refuse(call.name, prepared.error);
    this.meter.addToolCall();
    const result = await callChild({ client: this.client, own: this.own, meter: this.meter, waitForApproval: this.agent.waitForApproval }, tool, prepared.args);
    if (result.approvalId !== undefined) this.askedPerson.set(same, result.callId);
    this.childCalls.push(childCallOf(tool, result));
    this.artifacts.push(...(result.artifacts ?? []));
    if (isAgentTool(tool) && result.ok) {
      const nested = usageOfOutput(result.data);
      if (nested !== undefined) this.meter.addNested(nested);
    }
    return toModelMessage(result);
  }

  /**
   * The same call asked for again while (or after) a person decides it: its state now, read without
   * asking anything (a grant ran it once; a denial or expiry says why), and no tool call counted.
   */
  private async askedAgain(tool: string, callId: string): Promise<string> {
    const now: ToolResult = await this.client.awaitCall(callId, tool, { wait: false, timeoutMs: Math.min(ASKED_AGAIN_READ_MS, Math.max(1, this.meter.remainingMs(Date.now()))) });
    const i = this.childCalls.findIndex((c) => c.callId === callId);
    if (i >= 0) this.childCalls[i] = childCallOf(tool, now);
    this.log.info({ tool, callId, status: now.status }, "model asked again for a call that went to a person: not asked twice");
    return `You asked for this same call before (call ${callId}); it was not asked for again. ${toModelMessage(now)}`;
  }

  private refuse(name: string, error: WardenError): string {
    this.childCalls.push(refusedCallOf(name, error));
    return toModelMessage({ callId: "", ok: false, status: "rejected", error });
  }
}

/** How long a repeated ask waits to read the earlier call's state (it is read, never asked again). */
const ASKED_AGAIN_READ_MS = 2_000;

/** The model's tool calls; a non-function kind keeps its name so it is refused like any unknown tool. */
function toolCallsOf(message: ChatCompletionMessage): ModelToolCall[] {
  return (message.tool_calls ?? []).map((c) =>
    c.type === "function" ? { id: c.id, name: c.function.name, arguments: c.function.arguments } : { id: c.id, name: c.custom.name, arguments: "" },
  );
}

function assistantParam(message: ChatCompletionMessage): ChatCompletionMessageParam {
  return { role: "assistant", content: message.content ?? null, ...(message.tool_calls?.length ? { tool_calls: message.tool_calls } : {}) };
}
