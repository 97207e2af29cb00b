import type { WardenEvent } from "@warden/contracts";
import { cut } from "../output.js";

const ARGS_CHARS = 120;

/** The few fields of an event worth a glance, as `key=value` pairs. */
export function keyFields(e: WardenEvent): string {
  const f: [string, unknown][] = [];
  switch (e.type) {
    case "ToolCallRequested":
      f.push(["tool", e.tool], ["args", cut(JSON.stringify(e.data.args), ARGS_CHARS)], ["scope", e.data.scope]);
      if (Object.keys(e.data.flags).length > 0) f.push(["flags", JSON.stringify(e.data.flags)]);
      if (e.data.version) f.push(["version", e.data.version]);
      if (e.parentCallId) f.push(["parent", e.parentCallId]);
      break;
    case "ToolArgsValidated":
      f.push(["tool", e.tool], ["version", e.data.version], ["grade", e.data.grade], ["argsHash", e.data.argsHash]);
      break;
    case "ToolCallRejected":
      f.push(["stage", e.data.stage], ["error", `${e.data.error.code}: ${e.data.error.message}`]);
      if (e.data.ruleIds?.length) f.push(["rules", e.data.ruleIds.join(",")]);
      break;
    case "ToolPolicyChecked":
      f.push(["decision", e.data.decision], ["rules", e.data.ruleIds.join(",")], ["policy", e.data.policyVersion], ["reason", e.data.reason]);
      break;
    case "ApprovalRequested":
      f.push(["approvalId", e.data.approvalId], ["grade", e.data.grade], ["expires", e.data.expiresAt], ["argsHash", e.data.argsHash]);
      break;
    case "ApprovalGranted":
      f.push(["approvalId", e.data.approvalId], ["approver", e.data.approver], ["grantExpires", e.data.expiresAt]);
      break;
    case "ApprovalDenied":
      f.push(["approvalId", e.data.approvalId], ["approver", e.data.approver], ["reason", e.data.reason]);
      break;
    case "ApprovalExpired":
      f.push(["approvalId", e.data.approvalId], ["expired", e.data.expiresAt]);
      break;
    case "ToolCallStarted":
      f.push(["executor", e.data.executorId], ["authorizedBy", e.data.authorizedBy.type], ["deadline", e.data.deadline]);
      break;
    case "ToolCallFinished":
      f.push(["ok", e.data.ok], ["durationMs", Math.round(e.data.durationMs)], ["outputBytes", e.data.outputBytes]);
      if (e.data.truncated) f.push(["truncated", true]);
      if (e.data.artifacts.length) f.push(["artifacts", e.data.artifacts.map((a) => a.id).join(",")]);
      if (e.data.error) f.push(["error", `${e.data.error.code}: ${e.data.error.message}`]);
      break;
    case "ToolCallOutcomeUnknown":
      f.push(["reason", e.data.reason], ["executor", e.data.executorId]);
      break;
  }
  // args are already JSON; other text with spaces is quoted so each pair reads as one
  return f.map(([k, v]) => `${k}=${k !== "args" && typeof v === "string" && /\s/.test(v) ? JSON.stringify(v) : String(v)}`).join(" ");
}

/** One line per event, in stream order: time, type, principal, key fields. */
export function traceText(callId: string, domain: string, events: readonly WardenEvent[]): string {
  const width = Math.max(0, ...events.map((e) => e.type.length));
  const lines = events.map((e) => `${e.ts}  ${e.type.padEnd(width)}  ${e.principal}  ${keyFields(e)}`);
  return [`call ${callId} (domain ${domain}, ${events.length} events)`, ...lines].join("\n");
}
