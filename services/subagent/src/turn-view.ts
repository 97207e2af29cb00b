import { appendEvent, type Bus } from "@warden/bus";
import { newId } from "@warden/contracts/events";
import { type ToolView } from "@warden/contracts/descriptor";
import type { AgentClient } from "@warden/sdk";
import type { RunSkills } from "./domain/run-skills.js";
import { toolViewCompiledEvent, type OwnCall } from "./domain/view-event.js";

/**
 * Compiles this turn's ToolView (the subagent's principal, llm mode, the delegating caller's flags
 * and scope, only its allowed tools and the scripts of its active skills) and records it as
 * ToolViewCompiled, with the skills and why they are active, before the model sees it.
 */
export async function compileTurnView(bus: Bus, client: AgentClient, own: OwnCall, turn: number, allowedTools: readonly string[], skills: RunSkills): Promise<ToolView> {
  const only = [...new Set([...allowedTools, ...skills.tools])];
  const reply = await client.toolView({
    principal: client.principal,
    mode: "llm",
    flags: { ...own.flags },
    scope: own.scope,
    only,
    explain: true,
    format: "table",
  });
  if (!reply.ok) throw new Error(`the tool view for turn ${turn} could not be compiled: ${reply.error.code} ${reply.error.message}`);
  const view = reply.value.view;
  const event = toolViewCompiledEvent(own, turn, view, only, { eventId: newId(), ts: new Date().toISOString() }, skills);
  const appended = await appendEvent(bus, event);
  // a second writer of this turn's slot means two runs of one call: the record must stay true
  if (appended.status === "already_written" && !appended.ours) throw new Error(`turn ${turn} of call ${own.callId} was already recorded by another run`);
  return view;
}
