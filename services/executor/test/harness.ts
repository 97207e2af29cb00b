/** Test-only helpers: stand-ins for the registry and approver services, and event builders. */
import { generateKeyPairSync, sign, type KeyObject } from "node:crypto";
import { appendEvent, kvPutJson, readEvent, serveRpc, silentLogger, type Bus } from "@warden/bus";
import {
  approverKeyId,
  argsHash,
  BUCKET_TOOLS,
  grantSigningPayload,
  grantStatementOf,
  newId,
  QUEUE_REGISTRY,
  REGISTRY_REGISTER_SUBJECTS,
  STREAM_CALLS,
  ToolDescriptorSchema,
  descriptorHash,
  toolKey,
  wardenError,
  type ApprovalGranted,
  type ApprovalRequested,
  type CallMode,
  type EventOfType,
  type EventType,
  type JsonValue,
  type Reply,
  type ToolArgsValidated,
  type ToolPolicyChecked,
  type WardenEvent,
} from "@warden/contracts";
import type { ExecutableTool } from "../src/index.js";
import { eventually } from "../../../test/support/eventually.js";

/**
 * Answers `warden.registry.register.<domain>` the way the registry does (ToolRecords in KV, conflicts on
 * new content for a known version). `script` may answer an attempt itself (e.g. UNAVAILABLE).
 */
export async function serveFakeRegistry(bus: Bus, script?: (attempt: number) => Reply | undefined) {
  const kv = await bus.kvm.open(BUCKET_TOOLS);
  let attempts = 0;
  const sub = serveRpc(bus, REGISTRY_REGISTER_SUBJECTS, QUEUE_REGISTRY, silentLogger(), async (payload) => {
    attempts++;
    const scripted = script?.(attempts);
    if (scripted) return scripted;
    const { descriptors, initialStatus = "enabled" } = payload as { descriptors: unknown[]; initialStatus?: string };
    const registered = [];
    for (const raw of descriptors) {
      const d = ToolDescriptorSchema.parse(raw);
      const hash = descriptorHash(d);
      const key = toolKey(d.name, d.version);
      const existing = await kv.get(key);
      if (existing?.operation === "PUT") {
        const rec = existing.json<{ descriptorHash: string; status: string }>();
        if (rec.descriptorHash !== hash) return { ok: false, error: wardenError("REGISTRATION_CONFLICT", `${key} has other content`) };
        registered.push({ name: d.name, version: d.version, descriptorHash: hash, status: rec.status, created: false });
        continue;
      }
      const at = new Date().toISOString();
      await kvPutJson(kv, key, { descriptor: d, descriptorHash: hash, status: initialStatus, registeredAt: at, statusChangedAt: at });
      registered.push({ name: d.name, version: d.version, descriptorHash: hash, status: initialStatus, created: true });
    }
    return { ok: true, value: { registered } };
  });
  return {
    attempts: () => attempts,
    async stop() {
      sub.unsubscribe();
      await bus.nc.flush();
    },
  };
}

export interface ApproverKey {
  readonly keyId: string;
  readonly privateKey: KeyObject;
  /** SPKI DER, base64: what an executor pins (`approverKeys`). */
  readonly publicKeyDerBase64: string;
}

/** A fresh approver key pair, as provisioning mints one: pin `publicKeyDerBase64` in the executor. */
export function approverKey(): ApproverKey {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const der = publicKey.export({ type: "spki", format: "der" });
  return { keyId: approverKeyId(der), privateKey, publicKeyDerBase64: der.toString("base64") };
}

/** A key that is not pinned, naming itself `keyId`: what a forger would sign with. */
export function unpinnedKey(keyId: string): ApproverKey {
  const other = approverKey();
  return { ...other, keyId };
}

interface CallOptions {
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

function envelope(tool: ExecutableTool, o: CallOptions) {
  return {
    v: 1 as const,
    eventId: newId(),
    callId: o.callId ?? newId(),
    domain: tool.domain,
    tool: tool.descriptor.name,
    principal: o.principal ?? "alice",
    mode: o.mode ?? "human",
    ts: new Date().toISOString(),
    causationId: newId(),
    correlationId: "run-test",
  };
}

function bound(tool: ExecutableTool, args: JsonValue, o: CallOptions) {
  return {
    version: o.version ?? tool.descriptor.version,
    descriptorHash: o.descriptorHash ?? tool.descriptorHash,
    grade: tool.descriptor.grade,
    argsHash: o.argsHash ?? argsHash(args),
  };
}

/** The registry's ToolArgsValidated of a call. */
export function argsValidated(tool: ExecutableTool, args: JsonValue, o: CallOptions = {}): ToolArgsValidated {
  return { ...envelope(tool, o), type: "ToolArgsValidated", data: { ...bound(tool, args, o), args, scope: null, flags: {} } };
}

/** A policy decision answering the call's ToolArgsValidated (which `append` writes first). */
export function policyChecked(
  tool: ExecutableTool,
  args: JsonValue,
  o: CallOptions & ChainOptions & { decision?: ToolPolicyChecked["data"]["decision"] } = {},
): ToolPolicyChecked {
  const validated = argsValidated(tool, args, o);
  const v = o.validated;
  const writtenValidation = v === "none" ? undefined : { ...validated, data: { ...validated.data, ...v } };
  const pc: ToolPolicyChecked = {
    ...envelope(tool, o),
    callId: validated.callId,
    type: "ToolPolicyChecked",
    causationId: o.causationId ?? validated.eventId,
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
  tool: ExecutableTool,
  args: JsonValue,
  o: CallOptions & ChainOptions & { approvalId?: string; answering?: ToolPolicyChecked } = {},
): ApprovalRequested {
  const pc = o.answering ?? policyChecked(tool, args, { ...o, decision: "require_approval" });
  const request: ApprovalRequested = {
    ...envelope(tool, o),
    callId: pc.callId,
    type: "ApprovalRequested",
    causationId: pc.eventId,
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

export function waitForEvent<T extends EventType>(bus: Bus, domain: string, callId: string, type: T, timeoutMs = 10_000): Promise<EventOfType<T>> {
  return eventually(async () => {
    const e = await readEvent(bus, domain, callId, type);
    if (e === undefined) throw new Error(`no ${type} for ${callId} yet`);
    return e;
  }, timeoutMs);
}

/** Waits until a stage has acked everything up to `seq`: whatever it does with that event is done. */
export function waitForAck(bus: Bus, durable: string, seq: number): Promise<void> {
  return eventually(async () => {
    const info = await bus.jsm.consumers.info(STREAM_CALLS, durable);
    if (info.ack_floor.stream_seq < seq) throw new Error(`${durable} acked up to ${info.ack_floor.stream_seq}, not ${seq}`);
  });
}
