import type { WardenEvent } from "@warden/contracts/events";
import type { CallModel } from "./call-model.js";
import type { CallDraft, Flag } from "./call-step.js";

/** Every event of a call must name the call's domain, principal, mode, run and parent. */
export function checkIdentity(model: CallModel, e: WardenEvent, flag: Flag): void {
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
export function checkBinding(m: CallDraft, b: Binding, what: string, flag: Flag): void {
  if (m.argsHash === undefined) return;
  const diffs: string[] = [];
  if (b.argsHash !== m.argsHash) diffs.push(`argsHash ${b.argsHash}, validated ${m.argsHash}`);
  if (b.descriptorHash !== m.descriptorHash) diffs.push(`descriptorHash ${b.descriptorHash}, validated ${m.descriptorHash ?? "?"}`);
  if (b.version !== m.version) diffs.push(`version ${b.version}, validated ${m.version ?? "?"}`);
  if (diffs.length > 0) flag("binding_mismatch", `${what}: ${diffs.join("; ")}`);
}
