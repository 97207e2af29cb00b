/** Test-only helpers: stand-ins for the registry and approver services, and event builders. */
import { generateKeyPairSync, sign, type KeyObject } from "node:crypto";
import { appendEvent, kvPutJson, readEvent, serveRpc, silentLogger, type Bus } from "@warden/bus";
import {
  approverKeyKey,
  argsHash,
  BUCKET_POLICY,
  BUCKET_TOOLS,
  grantSigningPayload,
  grantStatementOf,
  newId,
  QUEUE_REGISTRY,
  STREAM_CALLS,
  SUBJECT_REGISTRY_REGISTER,
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
  type ToolPolicyChecked,
} from "@warden/contracts";
import type { ExecutableTool } from "../src/index.js";
import { eventually } from "../../../test/support/eventually.js";

/**
 * Answers `warden.registry.register` the way the registry does (ToolRecords in KV, conflicts on
 * new content for a known version). `script` may answer an attempt itself (e.g. UNAVAILABLE).
 */
export async function serveFakeRegistry(bus: Bus, script?: (attempt: number) => Reply | undefined) {
  const kv = await bus.kvm.open(BUCKET_TOOLS);
  let attempts = 0;
  const sub = serveRpc(bus, SUBJECT_REGISTRY_REGISTER, QUEUE_REGISTRY, silentLogger(), async (payload) => {
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
}

/** Publishes an approver public key in `warden_policy`, as the approver service does. */
export async function publishApproverKey(bus: Bus, keyId = `k${newId()}`): Promise<ApproverKey> {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const kv = await bus.kvm.open(BUCKET_POLICY);
  await kvPutJson(kv, approverKeyKey(keyId), publicKey.export({ type: "spki", format: "der" }).toString("base64"));
  return { keyId, privateKey };
}

/** A key that is not published: what a forger would sign with. */
export function unpublishedKey(keyId: string): ApproverKey {
  return { keyId, privateKey: generateKeyPairSync("ed25519").privateKey };
}

interface CallOptions {
  readonly callId?: string;
  readonly principal?: string;
  readonly mode?: CallMode;
  /** Bind the call to other values than the tool's (to provoke refusals). */
  readonly version?: string;
  readonly descriptorHash?: string;
  readonly argsHash?: string;
}

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

export function policyChecked(
  tool: ExecutableTool,
  args: JsonValue,
  o: CallOptions & { decision?: ToolPolicyChecked["data"]["decision"] } = {},
): ToolPolicyChecked {
  return {
    ...envelope(tool, o),
    type: "ToolPolicyChecked",
    data: { ...bound(tool, args, o), args, decision: o.decision ?? "allow", reason: "test", ruleIds: ["test.rule"], policyVersion: "test" },
  };
}

export function approvalRequested(tool: ExecutableTool, args: JsonValue, o: CallOptions & { approvalId?: string } = {}): ApprovalRequested {
  return {
    ...envelope(tool, o),
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

/** Appends an event and fails the test if the slot was taken. */
export async function append(bus: Bus, event: Parameters<typeof appendEvent>[1]): Promise<number> {
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
