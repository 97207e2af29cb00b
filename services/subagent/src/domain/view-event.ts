import { answerCallEvent, type EventCause, type EventStamp, type ToolViewCompiled } from "@warden/contracts/events";
import { type CallMode, type Intent, type ToolView } from "@warden/contracts/descriptor";
import type { RunSkills } from "./run-skills.js";

/** The subagent's own call, as its recorded events describe it. */
export interface OwnCall {
  readonly callId: string;
  readonly domain: string;
  readonly tool: string;
  /** Who delegated: the principal of the subagent's call. */
  readonly principal: string;
  readonly mode: CallMode;
  readonly correlationId: string;
  readonly parentCallId?: string;
  readonly flags: Readonly<Record<string, boolean>>;
  readonly scope: string | null;
  /** What the child calls say they are for: the delegated task, from the subagent's own args. */
  readonly intent?: Intent;
  /** The call's ToolCallStarted (the executor's claim): what each turn's view answers. */
  readonly started: EventCause;
  readonly startedAtMs: number;
}

/**
 * What the model is shown on one turn, recorded on the subagent's own call. Hidden lists only the
 * allowed tools left out (with why), and allowed tools the registry does not know at all: tools
 * outside the subagent's list are out by its definition, not by a decision worth recording.
 * Active skills are recorded with why they matched; their scripts count as allowed, and those
 * above the subagent's grade are listed hidden without being asked for.
 */
export function toolViewCompiledEvent(
  own: OwnCall,
  turn: number,
  view: ToolView,
  allowedTools: readonly string[],
  stamp: EventStamp,
  skills?: Pick<RunSkills, "activated" | "hidden">,
): ToolViewCompiled {
  const allowed = new Set(allowedTools);
  const shown = new Set(view.tools.map((t) => t.name));
  const hidden: { name: string; reason: string; detail: string }[] = view.hidden.filter((h) => allowed.has(h.name)).map((h) => ({ name: h.name, reason: h.reason, detail: h.detail }));
  const known = new Set([...shown, ...view.hidden.map((h) => h.name)]);
  for (const name of allowedTools) {
    if (!known.has(name)) hidden.push({ name, reason: "not_registered", detail: `the registry has no tool named ${name}` });
  }
  hidden.push(...(skills?.hidden ?? []));
  const data = {
    turn,
    viewPrincipal: view.query.principal,
    viewMode: view.query.mode,
    policyVersion: view.policyVersion,
    tools: view.tools.map((t) => ({ name: t.name, wireName: t.wireName, version: t.version, grade: t.grade })),
    hidden,
    ...(skills === undefined || skills.activated.length === 0 ? {} : { skills: [...skills.activated] }),
  };
  return answerCallEvent(own, own.started, "ToolViewCompiled", data, stamp);
}
