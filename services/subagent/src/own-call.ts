import { readEvent, type Bus } from "@warden/bus";
import { causeOf } from "@warden/contracts/events";
import { delegatedIntent } from "@warden/contracts/descriptor";
import { AGENT_DOMAIN } from "@warden/contracts/policy";
import { AgentArgsSchema } from "./domain/agent-input.js";
import type { OwnCall } from "./domain/view-event.js";

/**
 * The subagent's own call as recorded: who delegated, with which flags and scope, and when it
 * started. Child calls inherit these from the stream, never from anything the model says.
 */
export async function readOwnCall(bus: Bus, callId: string): Promise<OwnCall> {
  const [validated, started] = await Promise.all([
    readEvent(bus, AGENT_DOMAIN, callId, "ToolArgsValidated"),
    readEvent(bus, AGENT_DOMAIN, callId, "ToolCallStarted"),
  ]);
  // the executor ran us because these exist: their absence is broken infrastructure
  if (validated === undefined || started === undefined) throw new Error(`the events of subagent call ${callId} could not be read`);
  const task = AgentArgsSchema.shape.task.safeParse((validated.data.args as { task?: unknown } | null)?.task);
  return {
    callId,
    domain: validated.domain,
    tool: validated.tool,
    principal: validated.principal,
    mode: validated.mode,
    correlationId: validated.correlationId,
    ...(validated.parentCallId === undefined ? {} : { parentCallId: validated.parentCallId }),
    flags: validated.data.flags,
    scope: validated.data.scope,
    ...(task.success ? { intent: delegatedIntent(task.data, validated.principal, validated.tool) } : {}),
    started: causeOf(started),
    startedAtMs: Date.parse(started.ts),
  };
}
