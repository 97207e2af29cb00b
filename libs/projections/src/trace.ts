import { type WardenEvent } from "@warden/contracts/events";
import { describeConstraints } from "@warden/contracts/policy";
import type { CallModel } from "./call-model.js";
import { callHeading, type CallHeading } from "./call-heading.js";
import { applyCallEvent } from "./reduce-call.js";
import type { Violation } from "./violations.js";

/** A result is shown cut to this many characters of JSON. */
export const RESULT_PREVIEW_CHARS = 200;

export interface TraceEntry {
  readonly seq: number;
  readonly event: WardenEvent;
}

/** One event of a call as an auditor reads it. */
export interface TraceStep {
  readonly seq: number;
  readonly ts: string;
  readonly type: WardenEvent["type"];
  readonly eventId: string;
  /** Who did it: the requester, a stage, the approver, the executor. */
  readonly actor: string;
  /** Milliseconds since the call's first event, and since the previous one. */
  readonly sinceStartMs: number;
  readonly sincePrevMs: number;
  readonly decision?: string;
  readonly ruleIds?: readonly string[];
  readonly policyVersion?: string;
  readonly reason?: string;
  readonly argsHash?: string;
  readonly args?: string;
  /** The request's intent, and on a grant of edited args the args that run instead. */
  readonly intent?: { readonly goal: string; readonly rationale?: string; readonly expectedEffect?: string };
  readonly editedArgs?: string;
  /** On a request that undoes another call: that call (`domain/callId`). */
  readonly undoes?: string;
  /** On a result: how the call is undone (`tool(args)`), when its tool declares a compensation. */
  readonly undo?: string;
  /** On a result: how much personal data of each kind the executor masked before recording it. */
  readonly personalDataRedacted?: Readonly<Partial<Record<string, number>>>;
  /** On a result: what the run reported it read, wrote and called (`effectsObserved`). */
  readonly effects?: { readonly reads: readonly string[]; readonly writes: readonly string[]; readonly external: readonly string[]; readonly dropped?: number };
  /** On a grant: the session grant it made, or the one that gave it. */
  readonly session?: string;
  /** On an approval card: on whose behalf ("alice via agent.triage"); on a delegated call's decision, the principal it runs for. */
  readonly onBehalfOf?: string;
  /** On a result: the credentials the run used, `secret:principal` or `secret:executor` (names, never values). */
  readonly credentials?: readonly string[];
  readonly approvalId?: string;
  readonly approver?: string;
  /** On an approval card: the people the document let decide it (when it names them). */
  readonly deciders?: readonly string[];
  readonly expiresAt?: string;
  readonly error?: { readonly code: string; readonly message: string };
  readonly ok?: boolean;
  readonly durationMs?: number;
  readonly resultPreview?: string;
  readonly artifacts?: readonly { readonly id: string; readonly bytes: number; readonly sha256: string }[];
  readonly turn?: number;
  readonly tools?: readonly string[];
  readonly hidden?: number;
}

export interface CallTrace extends CallHeading {
  readonly callId: string;
  /** From the first event to the last. */
  readonly totalMs: number;
  readonly steps: readonly TraceStep[];
  readonly violations: readonly Violation[];
  /** Child calls of a subagent, each with its own trace, in the order they were requested. */
  readonly children: readonly CallTrace[];
}

/** A call's timeline from its events in stream order; undefined when there are none. */
export function buildTrace(entries: readonly TraceEntry[], children: readonly CallTrace[] = []): CallTrace | undefined {
  const first = entries[0];
  if (first === undefined) return undefined;
  let model: CallModel | undefined;
  for (const { seq, event } of entries) model = applyCallEvent(model, event, seq);
  const m = model!;
  const start = Date.parse(first.event.ts);
  let prev = start;
  const steps = entries.map(({ seq, event }) => {
    const at = Date.parse(event.ts);
    const step: TraceStep = { seq, ts: event.ts, type: event.type, eventId: event.eventId, actor: actorOf(event), sinceStartMs: at - start, sincePrevMs: at - prev, ...detailsOf(event) };
    prev = at;
    return step;
  });
  return {
    callId: m.callId,
    ...callHeading(m),
    totalMs: prev - start,
    steps,
    violations: m.violations,
    children,
  };
}

export function actorOf(e: WardenEvent): string {
  switch (e.type) {
    case "ToolCallRequested":
      return e.principal;
    case "ToolArgsValidated":
      return "registry";
    case "ToolPolicyChecked":
      return "policy";
    case "ApprovalRequested":
    case "ApprovalExpired":
      return "approver";
    case "ApprovalGranted":
    case "ApprovalDenied":
      return e.data.approver;
    case "ToolCallStarted":
    case "ToolCallFinished":
    case "ToolCallOutcomeUnknown":
    case "ToolCallLateResult":
    case "ToolResultValidated":
      return e.data.executorId;
    case "ToolCallRejected":
      return e.data.stage;
    case "ToolViewCompiled":
      return e.data.viewPrincipal;
    case "ToolCallCancelled":
    case "SessionGrantRevoked":
      return e.data.by;
  }
}

function detailsOf(e: WardenEvent): Partial<TraceStep> {
  switch (e.type) {
    case "ToolCallRequested":
      return {
        args: cut(JSON.stringify(e.data.args), RESULT_PREVIEW_CHARS),
        ...(e.data.intent === undefined ? {} : { intent: e.data.intent }),
        ...(e.data.compensates === undefined ? {} : { undoes: `${e.data.compensates.domain}/${e.data.compensates.callId}` }),
      };
    case "ToolArgsValidated":
      return { argsHash: e.data.argsHash };
    case "ToolPolicyChecked":
      return {
        decision: e.data.decision,
        ruleIds: e.data.ruleIds,
        policyVersion: e.data.policyVersion,
        reason: e.data.reason,
        argsHash: e.data.argsHash,
        ...(e.data.onBehalfOf === undefined ? {} : { onBehalfOf: e.data.onBehalfOf }),
      };
    case "ApprovalRequested":
      return {
        approvalId: e.data.approvalId,
        argsHash: e.data.argsHash,
        expiresAt: e.data.expiresAt,
        reason: e.data.reason,
        ...(e.data.deciders === undefined || e.data.deciders.length === 0 ? {} : { deciders: e.data.deciders }),
        ...(e.data.onBehalfOf === undefined ? {} : { onBehalfOf: e.data.onBehalfOf }),
      };
    case "ApprovalGranted":
      return {
        approvalId: e.data.approvalId,
        approver: e.data.approver,
        argsHash: e.data.argsHash,
        expiresAt: e.data.expiresAt,
        ...(e.data.edit === undefined ? {} : { editedArgs: cut(JSON.stringify(e.data.edit.args), RESULT_PREVIEW_CHARS) }),
        ...(e.data.session === undefined ? {} : { session: `for the session until ${e.data.session.expiresAt}: ${describeConstraints(e.data.session.args, e.data.session.argNames)}` }),
        ...(e.data.bySession === undefined ? {} : { session: `by the session grant of call ${e.data.bySession.grantId}` }),
      };
    case "ApprovalDenied":
      return { approvalId: e.data.approvalId, approver: e.data.approver, reason: e.data.reason };
    case "ApprovalExpired":
      return { approvalId: e.data.approvalId, expiresAt: e.data.expiresAt };
    case "ToolCallStarted":
      return { argsHash: e.data.argsHash, reason: `authorised by ${e.data.authorizedBy.type}` };
    case "ToolCallFinished":
      return {
        ok: e.data.ok,
        durationMs: e.data.durationMs,
        ...(e.data.output === undefined ? {} : { resultPreview: cut(JSON.stringify(e.data.output), RESULT_PREVIEW_CHARS) }),
        ...(e.data.artifacts.length === 0 ? {} : { artifacts: e.data.artifacts.map((a) => ({ id: a.id, bytes: a.bytes, sha256: a.sha256 })) }),
        ...(e.data.error === undefined ? {} : { error: { code: e.data.error.code, message: e.data.error.message } }),
        ...(e.data.undo === undefined ? {} : { undo: cut(`${e.data.undo.tool}(${JSON.stringify(e.data.undo.args)})`, RESULT_PREVIEW_CHARS) }),
        ...(e.data.effectsObserved === undefined ? {} : { effects: e.data.effectsObserved }),
        ...(e.data.personalDataRedacted === undefined ? {} : { personalDataRedacted: e.data.personalDataRedacted }),
        ...(e.data.credentials === undefined ? {} : { credentials: e.data.credentials.map((c) => `${c.secret}:${c.bind === "principal" ? c.principal : "executor"}`) }),
      };
    case "ToolCallOutcomeUnknown":
      return { reason: e.data.reason };
    case "ToolCallLateResult":
      return {
        ok: e.data.ok,
        durationMs: e.data.durationMs,
        reason: `arrived after ${e.data.outcomeType}; the call's outcome stands`,
        ...(e.data.error === undefined ? {} : { error: { code: e.data.error.code, message: e.data.error.message } }),
      };
    case "ToolResultValidated":
      return {
        ok: e.data.ok,
        reason: e.data.checks.map((c) => `${c.check} ${c.ok ? "passed" : `failed${c.message === undefined ? "" : `: ${cut(c.message, 200)}`}`}`).join("; "),
        ...(e.data.error === undefined ? {} : { error: { code: e.data.error.code, message: e.data.error.message } }),
      };
    case "ToolCallRejected":
      return { error: { code: e.data.error.code, message: e.data.error.message }, ...(e.data.ruleIds === undefined ? {} : { ruleIds: e.data.ruleIds }) };
    case "ToolViewCompiled":
      return { turn: e.data.turn, tools: e.data.tools.map((t) => t.name), hidden: e.data.hidden.length, policyVersion: e.data.policyVersion };
    case "ToolCallCancelled":
      return { reason: `cancelled by ${e.data.by} (${e.data.as})${e.data.reason === "" ? "" : `: ${e.data.reason}`}` };
    case "SessionGrantRevoked":
      return { approvalId: e.data.approvalId, reason: `session grant revoked by ${e.data.by} (${e.data.as})${e.data.reason === "" ? "" : `: ${e.data.reason}`}` };
  }
}

/** `text` cut to `max` characters, the last one an ellipsis. */
export function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
