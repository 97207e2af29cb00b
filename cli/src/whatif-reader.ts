import { readEvent, type Bus } from "@warden/bus";
import { type ToolArgsValidated, type ToolCallRequested, type ToolPolicyChecked } from "@warden/contracts/events";
import { parseCallSubject, resolveToolName } from "@warden/contracts/subjects";
import { globMatch, type RecordedDecision } from "@warden/policy-engine";
import { decodeCallMessage } from "@warden/projections";
import { readStream } from "@warden/projector";

export interface WhatIfRange {
  /** Calls requested at or after this time (the stream's own timestamps)... */
  readonly since?: Date;
  /** ...and at or before this one. */
  readonly until?: Date;
}

export interface WhatIfFilter {
  readonly principal?: string;
  /** A tool name or glob (`crm.*`), matched against the resolved name. */
  readonly tool?: string;
}

export interface WhatIfRead {
  /** The policy decisions of the calls requested in the range that pass the filter. */
  readonly decisions: RecordedDecision[];
  /** Calls requested in the range that pass the filter. */
  readonly requested: number;
  /** Of those, calls without a policy decision: refused by the registry, or still open. */
  readonly undecided: number;
  readonly read: number;
  readonly toSeq: number;
  /** Messages in the range that are not valid events (left out). */
  readonly invalid: number;
}

interface Pending {
  readonly request: ToolCallRequested;
  readonly requestedAt: string;
  validated?: ToolArgsValidated;
  checked?: ToolPolicyChecked;
}

/** Only these three events are decoded: the request (range, filter), what it was bound to, and the decision. */
const WANTED = new Set(["ToolCallRequested", "ToolArgsValidated", "ToolPolicyChecked"]);

/**
 * Reads the policy decisions of the calls requested in a range, from the stream only (direct gets
 * from `since`, as `warden audit` reads). A call requested in the range whose decision
 * was written after `until` (or past the read) gets it from its own subject.
 */
export async function readWhatIfCalls(bus: Bus, range: WhatIfRange, filter: WhatIfFilter): Promise<WhatIfRead> {
  const calls = new Map<string, Pending>();
  const untilMs = range.until?.getTime();
  let invalid = 0;
  const summary = await readStream(bus, range.since === undefined ? {} : { since: range.since }, (r) => {
    if (untilMs !== undefined && r.storedAtMs > untilMs) return false;
    const subject = parseCallSubject(r.subject);
    if (subject === undefined || !subject.types.some((t) => WANTED.has(t))) return;
    // a decision of a call requested before the range is not in it: skip it before decoding
    if (!subject.types.includes("ToolCallRequested") && !calls.has(subject.callId)) return;
    const d = decodeCallMessage(r.subject, r.data);
    if (!d.ok) {
      invalid++;
      return;
    }
    const e = d.event;
    if (e.type === "ToolCallRequested") calls.set(e.callId, { request: e, requestedAt: new Date(r.storedAtMs).toISOString() });
    else if (e.type === "ToolArgsValidated") calls.get(e.callId)!.validated = e;
    else if (e.type === "ToolPolicyChecked") calls.get(e.callId)!.checked = e;
  });
  const decisions: RecordedDecision[] = [];
  let requested = 0;
  let undecided = 0;
  for (const call of calls.values()) {
    if (!passes(call.request, filter)) continue;
    requested++;
    // decided after the range ended or after the read began: its own subject has it
    call.validated ??= await readEvent(bus, call.request.domain, call.request.callId, "ToolArgsValidated");
    if (call.validated !== undefined) call.checked ??= await readEvent(bus, call.request.domain, call.request.callId, "ToolPolicyChecked");
    if (call.validated === undefined || call.checked === undefined) {
      undecided++;
      continue;
    }
    decisions.push(recordedOf(call.requestedAt, call.validated, call.checked));
  }
  return { decisions, requested, undecided, read: summary.read, toSeq: summary.toSeq, invalid };
}

/** The filter on the request: its principal, and its tool by name (a wire name resolves as the registry resolves it). */
function passes(request: ToolCallRequested, filter: WhatIfFilter): boolean {
  if (filter.principal !== undefined && request.principal !== filter.principal) return false;
  return filter.tool === undefined || globMatch(filter.tool, resolveToolName(request.tool) ?? request.tool);
}

function recordedOf(requestedAt: string, v: ToolArgsValidated, c: ToolPolicyChecked): RecordedDecision {
  return {
    callId: v.callId,
    requestedAt,
    tool: v.tool,
    // what the decision was made on: the version and descriptor hash the decision itself carries
    version: c.data.version,
    descriptorHash: c.data.descriptorHash,
    principal: v.principal,
    mode: v.mode,
    flags: v.data.flags,
    scope: v.data.scope,
    ...(v.parentCallId === undefined ? {} : { parentCallId: v.parentCallId }),
    decision: c.data.decision,
    ruleIds: c.data.ruleIds,
    reason: c.data.reason,
    policyVersion: c.data.policyVersion,
    ...(c.data.history === undefined ? {} : { history: c.data.history }),
    ...(c.data.runLabels === undefined ? {} : { runLabels: c.data.runLabels }),
    runId: c.correlationId,
    ...(c.data.args === undefined ? {} : { args: c.data.args }),
  };
}
