import { canonicalJson, previewJson, type WardenEvent } from "@warden/contracts";
import type { CallModel } from "./call-model.js";
import { isAllowed, isTerminalState, type CallState, type StateBefore } from "./call-state.js";
import type { CallViolationKind, Violation } from "./violations.js";

/** A call model keeps a short preview of the args and the output; the events keep the rest. */
export const ARGS_SUMMARY_CHARS = 240;
export const OUTPUT_SUMMARY_BYTES = 512;
/** Clocks of the approver and the executor may differ this much before a late start is flagged. */
export const GRANT_CLOCK_SKEW_MS = 1_000;

type Draft = { -readonly [K in keyof CallModel]: CallModel[K] };

/**
 * Applies one event of a call (stream sequence `seq`) to its model; pure. The status follows the
 * state machine; a transition it does not allow is recorded as a violation, and the status then
 * moves only where the event reports something that happened (a run, a result).
 */
export function applyCallEvent(model: CallModel | undefined, event: WardenEvent, seq: number): CallModel {
  const before: StateBefore = model?.status ?? "none";
  const m: Draft = model === undefined ? newModel(event) : { ...model };
  const found: Violation[] = [];
  const flag = (kind: CallViolationKind, detail: string) => found.push({ kind, seq, eventId: event.eventId, type: event.type, detail });
  if (model !== undefined && event.type !== "ToolViewCompiled") checkIdentity(model, event, flag);

  // the registry answers a request no reader can decode (too deep, not UTF-8) from its subject:
  // then its refusal is the first event of the call anyone can read
  const unreadableRequestRefused = before === "none" && event.type === "ToolCallRejected" && event.data.stage === "registry";
  const allowed = isAllowed(event.type, before) || unreadableRequestRefused;
  // the state the event moves an allowed call to; undefined keeps it
  let next: CallState | undefined;
  // set when the event's own check already named what is wrong with the transition
  let named = false;

  switch (event.type) {
    case "ToolCallRequested": {
      if (model !== undefined) {
        flag("invalid_transition", model.requestedAt === undefined ? `a request after ${model.events.at(-1)?.type ?? "other events"}` : "a second ToolCallRequested");
        named = true;
      }
      if (m.requestedAt === undefined) {
        m.requestedAt = event.ts;
        m.requestedTool = event.tool;
        m.argsPreview = cutText(canonicalJson(event.data.args), ARGS_SUMMARY_CHARS);
        m.scope = event.data.scope;
        m.flags = event.data.flags;
      }
      if (event.parentCallId !== undefined && event.mode !== "llm") {
        flag("child_not_llm", `child of ${event.parentCallId} requested in ${event.mode} mode`);
      }
      next = "requested";
      break;
    }
    case "ToolArgsValidated": {
      const d = event.data;
      m.tool = event.tool;
      m.version = d.version;
      m.grade = d.grade;
      m.descriptorHash = d.descriptorHash;
      m.argsHash = d.argsHash;
      next = "validated";
      break;
    }
    case "ToolPolicyChecked": {
      const d = event.data;
      checkBinding(m, d, "the policy decision", flag);
      m.decision = { decision: d.decision, ruleIds: [...d.ruleIds], reason: d.reason, policyVersion: d.policyVersion, eventId: event.eventId, ts: event.ts };
      if (d.grade === "send" && event.mode === "llm" && d.decision !== "deny") {
        flag("llm_send_not_denied", `a send in llm mode was decided ${d.decision} (rules ${d.ruleIds.join(",")})`);
      }
      next = d.decision === "allow" ? "approved" : d.decision === "require_approval" ? "awaiting_approval" : "validated";
      break;
    }
    case "ApprovalRequested": {
      const d = event.data;
      checkBinding(m, d, "the approval request", flag);
      if (m.approval === undefined) {
        m.approval = {
          approvalId: d.approvalId,
          argsHash: d.argsHash,
          descriptorHash: d.descriptorHash,
          version: d.version,
          requestedAt: event.ts,
          expiresAt: d.expiresAt,
          requesterMayConfirm: d.approvers.requesterMayConfirm,
          requestEventId: event.eventId,
        };
      }
      next = "awaiting_approval";
      break;
    }
    case "ApprovalGranted": {
      const d = event.data;
      const a = m.approval;
      if (a === undefined || a.approvalId !== d.approvalId) {
        flag("grant_without_request", a === undefined ? `grant of ${d.approvalId} without an ApprovalRequested` : `grant of ${d.approvalId}, the call requested ${a.approvalId}`);
        named = true;
      } else if (a.outcome !== undefined) {
        flag("after_terminal", `grant of an approval already ${a.outcome}`);
        named = true;
      }
      if (m.argsHash !== undefined && d.argsHash !== m.argsHash) flag("grant_args_mismatch", `grant argsHash ${d.argsHash}, validated ${m.argsHash}`);
      else if (a !== undefined && d.argsHash !== a.argsHash) flag("grant_args_mismatch", `grant argsHash ${d.argsHash}, requested ${a.argsHash}`);
      const descriptorHash = m.descriptorHash ?? a?.descriptorHash;
      const version = m.version ?? a?.version;
      if ((descriptorHash !== undefined && d.descriptorHash !== descriptorHash) || (version !== undefined && d.version !== version)) {
        flag("grant_descriptor_mismatch", `grant for ${d.version} ${d.descriptorHash}, call bound to ${version ?? "?"} ${descriptorHash ?? "?"}`);
      }
      if (a !== undefined && a.approvalId === d.approvalId && a.outcome === undefined) {
        m.approval = { ...a, outcome: "granted", approver: d.approver, decidedAt: d.grantedAt, grantExpiresAt: d.expiresAt, grantEventId: event.eventId };
      }
      next = "approved";
      break;
    }
    case "ApprovalDenied":
    case "ApprovalExpired": {
      const d = event.data;
      const a = m.approval;
      if (a === undefined || a.approvalId !== d.approvalId) {
        flag("grant_without_request", `${event.type} of ${d.approvalId}, the call requested ${a?.approvalId ?? "no approval"}`);
        named = true;
      } else if (a.outcome === undefined) {
        m.approval =
          event.type === "ApprovalDenied"
            ? { ...a, outcome: "denied", approver: event.data.approver, decidedAt: event.ts, denialReason: event.data.reason }
            : { ...a, outcome: "expired", decidedAt: event.ts };
      }
      next = event.type === "ApprovalDenied" ? "denied" : "expired";
      break;
    }
    case "ToolCallStarted": {
      const d = event.data;
      const by = d.authorizedBy;
      if (before !== "approved") {
        flag("started_without_authorisation", `started while ${before}`);
        named = true;
      } else if (by.type === "ToolPolicyChecked" ? m.decision?.decision !== "allow" || m.decision.eventId !== by.eventId : m.approval?.grantEventId !== by.eventId) {
        flag("started_without_authorisation", `authorised by ${by.type} ${by.eventId}, which is not this call's ${by.type === "ToolPolicyChecked" ? "allow" : "grant"}`);
      }
      if (m.grade === "send" && (by.type !== "ApprovalGranted" || m.approval?.outcome !== "granted")) {
        flag("send_without_grant", `a send started on ${by.type} without a grant`);
      }
      checkBinding(m, d, "the claim", flag);
      const grantExpiry = m.approval?.grantExpiresAt;
      if (by.type === "ApprovalGranted" && grantExpiry !== undefined && Date.parse(event.ts) > Date.parse(grantExpiry) + GRANT_CLOCK_SKEW_MS) {
        flag("grant_expired_at_start", `started at ${event.ts}, the grant expired at ${grantExpiry}`);
      }
      m.run = { executorId: d.executorId, startedAt: event.ts, deadline: d.deadline, argsHash: d.argsHash, authorizedBy: { ...by } };
      // it ran, whatever came before
      m.status = "running";
      break;
    }
    case "ToolCallFinished":
    case "ToolCallOutcomeUnknown": {
      if (m.result !== undefined || m.outcomeUnknown !== undefined) {
        flag("finished_twice", `${event.type} after ${m.result !== undefined ? "ToolCallFinished" : "ToolCallOutcomeUnknown"}`);
        named = true;
        break;
      }
      if (m.run === undefined) {
        flag("finished_without_start", `${event.type} without a ToolCallStarted`);
        named = true;
      }
      if (event.type === "ToolCallFinished") {
        const d = event.data;
        if (d.truncated && d.artifacts.length === 0) flag("truncated_without_artifact", `output of ${d.outputBytes} bytes truncated with no artifact`);
        m.result = {
          ok: d.ok,
          finishedAt: event.ts,
          durationMs: d.durationMs,
          outputBytes: d.outputBytes,
          truncated: d.truncated,
          ...(d.output === undefined ? {} : { outputPreview: previewJson(d.output, OUTPUT_SUMMARY_BYTES) as CallModelOutput }),
          artifacts: d.artifacts.map((a) => ({ id: a.id, sha256: a.sha256, bytes: a.bytes })),
          ...(d.error === undefined ? {} : { error: { code: d.error.code, message: d.error.message } }),
          attempt: d.attempt,
          executorId: d.executorId,
        };
        m.status = d.ok ? "succeeded" : "failed";
      } else {
        m.outcomeUnknown = { at: event.ts, reason: event.data.reason, executorId: event.data.executorId };
        m.status = "outcome_unknown";
      }
      break;
    }
    case "ToolCallRejected": {
      const d = event.data;
      if (m.rejection === undefined) {
        m.rejection = {
          stage: d.stage,
          code: d.error.code,
          message: d.error.message,
          ...(d.ruleIds === undefined ? {} : { ruleIds: [...d.ruleIds] }),
          at: event.ts,
        };
      }
      next = "rejected";
      break;
    }
    case "ToolViewCompiled":
      m.viewTurns = m.viewTurns + 1;
      break;
    case "ToolCallLateResult": {
      const d = event.data;
      m.lateResult = {
        at: event.ts,
        ok: d.ok,
        executorId: d.executorId,
        afterType: d.outcomeType,
        ...(d.error === undefined ? {} : { errorCode: d.error.code }),
      };
      break;
    }
  }

  if (!allowed && !named) {
    if (before !== "none" && isTerminalState(before)) flag("after_terminal", `${event.type} after the call was ${before}`);
    else flag("invalid_transition", `${event.type} while ${before}`);
  }
  if (allowed && !named && next !== undefined) m.status = next;
  m.events = [...m.events, { seq, type: event.type, eventId: event.eventId, ts: event.ts }];
  if (found.length > 0) m.violations = [...m.violations, ...found];
  m.lastTs = event.ts;
  m.seq = seq;
  return m;
}

type CallModelOutput = NonNullable<NonNullable<CallModel["result"]>["outputPreview"]>;

/** A child's request, applied to its parent's model: the parent lists its children. */
export function linkChildCall(parent: CallModel | undefined, child: WardenEvent, seq: number): CallModel | undefined {
  if (parent === undefined) return undefined;
  const children = parent.children.includes(child.callId) ? parent.children : [...parent.children, child.callId];
  return { ...parent, children, seq };
}

function newModel(e: WardenEvent): Draft {
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

function checkIdentity(model: CallModel, e: WardenEvent, flag: (kind: CallViolationKind, detail: string) => void): void {
  const diffs: string[] = [];
  if (e.domain !== model.domain) diffs.push(`domain ${e.domain} (call: ${model.domain})`);
  if (e.principal !== model.principal) diffs.push(`principal ${e.principal} (call: ${model.principal})`);
  if (e.mode !== model.mode) diffs.push(`mode ${e.mode} (call: ${model.mode})`);
  if (e.correlationId !== model.correlationId) diffs.push(`run ${e.correlationId} (call: ${model.correlationId})`);
  if (e.parentCallId !== model.parentCallId) diffs.push(`parent ${e.parentCallId ?? "none"} (call: ${model.parentCallId ?? "none"})`);
  // before validation the name is the requested one (maybe a wire name); after, the resolved one
  if (model.version !== undefined && e.type !== "ToolArgsValidated" && e.tool !== model.tool) diffs.push(`tool ${e.tool} (call: ${model.tool})`);
  if (diffs.length > 0) flag("identity_mismatch", diffs.join("; "));
}

interface Binding {
  readonly argsHash: string;
  readonly descriptorHash: string;
  readonly version: string;
}

/** Every later event must carry the args and descriptor the registry validated. */
function checkBinding(m: Draft, b: Binding, what: string, flag: (kind: CallViolationKind, detail: string) => void): void {
  if (m.argsHash === undefined) return;
  const diffs: string[] = [];
  if (b.argsHash !== m.argsHash) diffs.push(`argsHash ${b.argsHash}, validated ${m.argsHash}`);
  if (b.descriptorHash !== m.descriptorHash) diffs.push(`descriptorHash ${b.descriptorHash}, validated ${m.descriptorHash ?? "?"}`);
  if (b.version !== m.version) diffs.push(`version ${b.version}, validated ${m.version ?? "?"}`);
  if (diffs.length > 0) flag("binding_mismatch", `${what}: ${diffs.join("; ")}`);
}

function cutText(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
