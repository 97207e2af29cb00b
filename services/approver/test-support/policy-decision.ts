import { newId, type ToolPolicyChecked } from "@warden/contracts/events";
import type { CallMode, Grade } from "@warden/contracts/descriptor";
import { argsHash, type JsonObject } from "@warden/contracts/json";

export interface PolicyDecisionOptions {
  /** @default "customer.message" (its domain is the name's first part) */
  readonly tool?: string;
  /** @default "send" */
  readonly grade?: Grade;
  /** @default "plan" */
  readonly mode?: CallMode;
  /** @default "planner" */
  readonly principal?: string;
  /** @default "require_approval" */
  readonly decision?: ToolPolicyChecked["data"]["decision"];
  /** @default a message to customer c-42 whose text no other call has */
  readonly args?: JsonObject;
  readonly policyVersion: string;
  /** The envelope's ids and time, for a unit test that compares them; fresh ids and now by default. */
  readonly envelope?: Pick<ToolPolicyChecked, "eventId" | "callId" | "ts" | "causationId" | "correlationId">;
}

/**
 * The policy's decision on a call, as the approver consumes it: by default a send that a person
 * must confirm, under the default rule of its grade and mode.
 */
export function policyDecision(o: PolicyDecisionOptions): ToolPolicyChecked {
  const tool = o.tool ?? "customer.message";
  const grade = o.grade ?? "send";
  const mode = o.mode ?? "plan";
  const args = o.args ?? { customerId: "c-42", text: `hello ${newId()}` };
  return {
    v: 1,
    type: "ToolPolicyChecked",
    eventId: o.envelope?.eventId ?? newId(),
    callId: o.envelope?.callId ?? newId(),
    domain: tool.split(".")[0]!,
    tool,
    principal: o.principal ?? "planner",
    mode,
    ts: o.envelope?.ts ?? new Date().toISOString(),
    causationId: o.envelope?.causationId ?? newId(),
    causeHash: `sha256:${"c".repeat(64)}`,
    correlationId: o.envelope?.correlationId ?? newId(),
    data: {
      version: "1.0.0",
      descriptorHash: `sha256:${"d".repeat(64)}`,
      grade,
      argsHash: argsHash(args),
      args,
      decision: o.decision ?? "require_approval",
      reason: "a person must confirm",
      ruleIds: [`default.${grade}.${mode}`],
      policyVersion: o.policyVersion,
    },
  };
}
