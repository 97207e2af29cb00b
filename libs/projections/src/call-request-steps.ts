import { canonicalJson } from "@warden/contracts/json";
import { checkBinding } from "./call-checks.js";
import type { CallStep } from "./call-step.js";

/** A call model keeps a short preview of the args; the events keep the rest. */
export const ARGS_SUMMARY_CHARS = 240;

export const requested: CallStep<"ToolCallRequested"> = (m, event, { model, flag }) => {
  let named = false;
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
    if (event.data.intent !== undefined) m.intent = event.data.intent;
  }
  if (event.parentCallId !== undefined && event.mode !== "llm") {
    flag("child_not_llm", `child of ${event.parentCallId} requested in ${event.mode} mode`);
  }
  return { next: "requested", named };
};

export const argsValidated: CallStep<"ToolArgsValidated"> = (m, event) => {
  const d = event.data;
  m.tool = event.tool;
  m.version = d.version;
  m.grade = d.grade;
  m.descriptorHash = d.descriptorHash;
  m.argsHash = d.argsHash;
  return { next: "validated" };
};

export const policyChecked: CallStep<"ToolPolicyChecked"> = (m, event, { flag }) => {
  const d = event.data;
  checkBinding(m, d, "the policy decision", flag);
  m.decision = {
    decision: d.decision,
    ruleIds: [...d.ruleIds],
    reason: d.reason,
    policyVersion: d.policyVersion,
    eventId: event.eventId,
    ts: event.ts,
    ...(d.shadow === undefined ? {} : { shadow: { decision: d.shadow.decision, ruleIds: [...d.shadow.ruleIds], shadowRuleIds: [...d.shadow.shadowRuleIds] } }),
  };
  // a model's send waits for a person or is refused: it never runs on the model's word
  if (d.grade === "send" && event.mode === "llm" && d.decision === "allow") {
    flag("llm_send_allowed", `a send in llm mode was decided allow (rules ${d.ruleIds.join(",")})`);
  }
  return { next: d.decision === "allow" ? "approved" : d.decision === "require_approval" ? "awaiting_approval" : "validated" };
};

export const rejected: CallStep<"ToolCallRejected"> = (m, event) => {
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
  return { next: "rejected" };
};

/** A cancel before the call started: the call ends here. */
export const cancelled: CallStep<"ToolCallCancelled"> = (m, event) => {
  m.cancelled ??= { by: event.data.by, as: event.data.as, reason: event.data.reason, at: event.ts };
  return { next: "cancelled" };
};

/** What a subagent's model was shown on a turn: counted, it changes nothing else. */
export const viewCompiled: CallStep<"ToolViewCompiled"> = (m) => {
  m.viewTurns = m.viewTurns + 1;
  return {};
};

/** Changes nothing of the call: the session grant it names is the approver's concern, and the trace shows it. */
export const sessionRevoked: CallStep<"SessionGrantRevoked"> = () => ({});

function cutText(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
