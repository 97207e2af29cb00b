import { sign } from "node:crypto";
import { appendEvent, type Bus } from "@warden/bus";
import {
  causeOf,
  eventHash,
  newId,
  type ApprovalGranted,
  type ApprovalRequested,
  type EventCause,
  type ToolArgsValidated,
  type ToolPolicyChecked,
  type WardenEvent,
} from "@warden/contracts/events";
import { type CallMode, type ToolDescriptor } from "@warden/contracts/descriptor";
import { grantSigningPayload, grantStatementOf } from "@warden/contracts/approval";
import { argsHash, type JsonValue } from "@warden/contracts/json";
import type { ApproverKey } from "./approver-key.js";

/**
 * What the builders need of a tool: an ExecutableTool of @warden/executor fits (this package
 * cannot name it, since the executor's own tests use it).
 */
export interface CallableTool {
  readonly domain: string;
  readonly descriptor: ToolDescriptor;
  readonly descriptorHash: string;
}

export interface CallOptions {
  readonly callId?: string;
  readonly principal?: string;
  readonly mode?: CallMode;
  /** Bind the call to other values than the tool's (to provoke refusals); the validation binds them too. */
  readonly version?: string;
  readonly descriptorHash?: string;
  readonly argsHash?: string;
}

/** Breaks the chain a decision must answer (forged or mixed-up events). */
interface ChainOptions {
  /** What the ToolPolicyChecked answers instead of the call's ToolArgsValidated. */
  readonly causationId?: string;
  /** Values the ToolArgsValidated binds instead of the decision's; "none" writes no ToolArgsValidated. */
  readonly validated?: "none" | Partial<Pick<ToolArgsValidated["data"], "argsHash" | "descriptorHash" | "version">>;
}

/**
 * The events a built event stands on (its ToolArgsValidated, ToolPolicyChecked), by eventId:
 * `append` writes them first, the way the registry and policy would have.
 */
const standsOn = new Map<string, WardenEvent[]>();

/** A cause that is no event on the stream (the harness writes no ToolCallRequested, or a test forges a cause). */
function unwrittenCause(eventId: string = newId()): EventCause {
  return { eventId, hash: eventHash({ unwritten: eventId }) };
}

function envelope(tool: CallableTool, o: CallOptions, cause: EventCause) {
  return {
    v: 1 as const,
    eventId: newId(),
    callId: o.callId ?? newId(),
    domain: tool.domain,
    tool: tool.descriptor.name,
    principal: o.principal ?? "alice",
    mode: o.mode ?? "human",
    ts: new Date().toISOString(),
    causationId: cause.eventId,
    causeHash: cause.hash,
    correlationId: "run-test",
  };
}

function bound(tool: CallableTool, args: JsonValue, o: CallOptions) {
  return {
    version: o.version ?? tool.descriptor.version,
    descriptorHash: o.descriptorHash ?? tool.descriptorHash,
    grade: tool.descriptor.grade,
    argsHash: o.argsHash ?? argsHash(args),
  };
}

/** The registry's ToolArgsValidated of a call. */
export function argsValidated(tool: CallableTool, args: JsonValue, o: CallOptions = {}): ToolArgsValidated {
  return { ...envelope(tool, o, unwrittenCause()), type: "ToolArgsValidated", data: { ...bound(tool, args, o), args, scope: null, flags: {} } };
}

/** A policy decision answering the call's ToolArgsValidated (which `append` writes first). */
export function policyChecked(
  tool: CallableTool,
  args: JsonValue,
  o: CallOptions & ChainOptions & { decision?: ToolPolicyChecked["data"]["decision"] } = {},
): ToolPolicyChecked {
  const validated = argsValidated(tool, args, o);
  const v = o.validated;
  const writtenValidation = v === "none" ? undefined : { ...validated, data: { ...validated.data, ...v } };
  const pc: ToolPolicyChecked = {
    ...envelope(tool, o, o.causationId !== undefined ? unwrittenCause(o.causationId) : causeOf(writtenValidation ?? validated)),
    callId: validated.callId,
    type: "ToolPolicyChecked",
    data: { ...bound(tool, args, o), args, decision: o.decision ?? "allow", reason: "test", ruleIds: ["test.rule"], policyVersion: "test" },
  };
  standsOn.set(pc.eventId, writtenValidation === undefined ? [] : [writtenValidation]);
  return pc;
}

/**
 * An approval request answering a require_approval decision (`answering`, or a new one), which
 * `append` writes first with its ToolArgsValidated.
 */
export function approvalRequested(
  tool: CallableTool,
  args: JsonValue,
  o: CallOptions & ChainOptions & { approvalId?: string; answering?: ToolPolicyChecked } = {},
): ApprovalRequested {
  const pc = o.answering ?? policyChecked(tool, args, { ...o, decision: "require_approval" });
  const request: ApprovalRequested = {
    ...envelope(tool, o, causeOf(pc)),
    callId: pc.callId,
    type: "ApprovalRequested",
    data: {
      ...bound(tool, args, o),
      approvalId: o.approvalId ?? newId(),
      argsPreview: JSON.stringify(args),
      args,
      title: tool.descriptor.title,
      expiresAt: new Date(Date.now() + 600_000).toISOString(),
      approvers: { human: true, requesterMayConfirm: false },
      reason: "test",
      ruleIds: ["test.rule"],
      policyVersion: "test",
    },
  };
  standsOn.set(request.eventId, [...(standsOn.get(pc.eventId) ?? []), pc]);
  return request;
}

/** A grant for `request`, signed with `key`; `overrides` change what is granted (and signed). */
export function grantFor(
  request: ApprovalRequested,
  key: ApproverKey,
  overrides: Partial<ApprovalGranted["data"]> & { callId?: string } = {},
): ApprovalGranted {
  const { callId = request.callId, ...dataOverrides } = overrides;
  const data = {
    approvalId: request.data.approvalId,
    approver: "bob",
    argsHash: request.data.argsHash,
    descriptorHash: request.data.descriptorHash,
    version: request.data.version,
    grantedAt: new Date().toISOString(),
    expiresAt: new Date(Date.now() + 60_000).toISOString(),
    nonce: newId(),
    keyId: key.keyId,
    signature: "",
    ...dataOverrides,
  };
  const signature = sign(null, grantSigningPayload(grantStatementOf(callId, data)), key.privateKey).toString("base64");
  return {
    ...request,
    callId,
    type: "ApprovalGranted",
    eventId: newId(),
    ts: new Date().toISOString(),
    causationId: request.eventId,
    causeHash: eventHash(request),
    data: { ...data, signature: dataOverrides.signature ?? signature },
  };
}

/**
 * Appends an event, after the events the harness built it on (not yet written ones), and fails
 * the test if its slot was taken.
 */
export async function append(bus: Bus, event: WardenEvent): Promise<number> {
  for (const before of standsOn.get(event.eventId) ?? []) {
    const r = await appendEvent(bus, before);
    if (r.status !== "written" && r.existing?.eventId !== before.eventId) throw new Error(`${before.type} for ${before.callId} was already written`);
  }
  const r = await appendEvent(bus, event);
  if (r.status !== "written") throw new Error(`${event.type} for ${event.callId} was already written`);
  return r.seq;
}
