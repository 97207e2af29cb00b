import type { WardenEvent } from "@warden/contracts/events";
import type { CallModel } from "./call-model.js";
import { checkIdentity } from "./call-checks.js";
import { isAllowed, isTerminalState, type StateBefore } from "./call-state.js";
import type { CallDraft, StepContext } from "./call-step.js";
import { stepOf } from "./call-steps.js";
import type { Violation } from "./violations.js";

/**
 * Applies one event of a call (stream sequence `seq`) to its model; pure. The status follows the
 * state machine; a transition it does not allow is recorded as a violation, and the status then
 * moves only where the event reports something that happened (a run, a result). The checks every
 * event gets (identity, allowed transition, after the end) live here; what each type does, in its step.
 */
export function applyCallEvent(model: CallModel | undefined, event: WardenEvent, seq: number): CallModel {
  const before: StateBefore = model?.status ?? "none";
  const m: CallDraft = model === undefined ? newModel(event) : { ...model };
  let found: Violation[] | undefined;
  const c: StepContext = { model, before, flag: (kind, detail) => (found ??= []).push({ kind, seq, eventId: event.eventId, type: event.type, detail }) };
  if (model !== undefined && event.type !== "ToolViewCompiled") checkIdentity(model, event, c.flag);

  // the registry answers a request no reader can decode (too deep, not UTF-8) from its subject:
  // then its refusal is the first event of the call anyone can read
  const unreadableRequestRefused = before === "none" && event.type === "ToolCallRejected" && event.data.stage === "registry";
  const allowed = isAllowed(event.type, before) || unreadableRequestRefused;
  const { next, named = false } = stepOf(event.type)(m, event, c);

  if (!allowed && !named) {
    if (before !== "none" && isTerminalState(before)) c.flag("after_terminal", `${event.type} after the call was ${before}`);
    else c.flag("invalid_transition", `${event.type} while ${before}`);
  }
  if (allowed && !named && next !== undefined) m.status = next;
  m.events = [...m.events, { seq, type: event.type, eventId: event.eventId, ts: event.ts }];
  if (found !== undefined) m.violations = [...m.violations, ...found];
  m.lastTs = event.ts;
  m.seq = seq;
  return m;
}

/** A child's request, applied to its parent's model: the parent lists its children. */
export function linkChildCall(parent: CallModel | undefined, child: WardenEvent, seq: number): CallModel | undefined {
  if (parent === undefined) return undefined;
  const children = parent.children.includes(child.callId) ? parent.children : [...parent.children, child.callId];
  return { ...parent, children, seq };
}

function newModel(e: WardenEvent): CallDraft {
  return {
    callId: e.callId,
    domain: e.domain,
    tool: e.tool,
    principal: e.principal,
    mode: e.mode,
    correlationId: e.correlationId,
    ...(e.parentCallId === undefined ? {} : { parentCallId: e.parentCallId }),
    status: "requested",
    firstTs: e.ts,
    lastTs: e.ts,
    viewTurns: 0,
    children: [],
    events: [],
    violations: [],
    seq: 0,
  };
}
