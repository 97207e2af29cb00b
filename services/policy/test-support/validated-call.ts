import { newId, type ToolArgsValidated } from "@warden/contracts/events";
import type { CallMode, ToolRecord } from "@warden/contracts/descriptor";
import { argsHash, type JsonObject } from "@warden/contracts/json";

export interface ValidatedCallOptions {
  /** @default "human" */
  readonly mode?: CallMode;
  /** @default "alice" */
  readonly principal?: string;
  /** The call's run (its correlationId); a new one by default. */
  readonly runId?: string;
  readonly scope?: string | null;
  readonly flags?: Record<string, boolean>;
  /** The descriptor the call is bound to, when not the record's. */
  readonly descriptorHash?: string;
  /** @default args no other call has */
  readonly args?: JsonObject;
  /** The envelope's ids and time, for a unit test that keeps them fixed; fresh ids and now by default. */
  readonly envelope?: Pick<ToolArgsValidated, "eventId" | "callId" | "ts" | "causationId">;
}

/** The registry's ToolArgsValidated of a call of `record` (domain: the name's first part), as the policy consumes it. */
export function validatedCall(record: ToolRecord, o: ValidatedCallOptions = {}): ToolArgsValidated {
  const args = o.args ?? { n: newId() };
  const d = record.descriptor;
  return {
    v: 1,
    type: "ToolArgsValidated",
    eventId: o.envelope?.eventId ?? newId(),
    callId: o.envelope?.callId ?? newId(),
    domain: d.name.split(".")[0]!,
    tool: d.name,
    principal: o.principal ?? "alice",
    mode: o.mode ?? "human",
    ts: o.envelope?.ts ?? new Date().toISOString(),
    causationId: o.envelope?.causationId ?? newId(),
    causeHash: `sha256:${"c".repeat(64)}`,
    correlationId: o.runId ?? newId(),
    data: {
      version: d.version,
      descriptorHash: o.descriptorHash ?? record.descriptorHash,
      grade: d.grade,
      argsHash: argsHash(args),
      args,
      scope: o.scope ?? null,
      flags: o.flags ?? {},
    },
  };
}
