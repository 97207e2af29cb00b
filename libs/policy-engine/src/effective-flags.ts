import type { PolicyDocument } from "@warden/contracts/policy";
import { principalOf } from "./principals.js";

/**
 * The feature flags a caller really holds: those the policy document grants the principal
 * (`principals.<name>.flags`), less any the request turns off. A request may only narrow: its
 * `true` for a flag the document does not grant is ignored, and a principal the document does
 * not name holds no flags.
 *
 * The result names every flag the document or the request mentions, each with its effective
 * value (a flag named by neither is off), so it can stand in for the request: applying
 * effectiveFlags again to its own result gives the same flags.
 */
export function effectiveFlags(
  doc: PolicyDocument,
  principal: string,
  requested: Readonly<Record<string, boolean>> = {},
): Readonly<Record<string, boolean>> {
  const granted = principalOf(doc, principal).flags ?? {};
  const names = new Set([...Object.keys(granted), ...Object.keys(requested)]);
  // fromEntries defines own properties, so even a flag named __proto__ stays a plain key
  return Object.fromEntries(
    [...names].map((flag) => [flag, isOn(granted, flag) && !(Object.hasOwn(requested, flag) && requested[flag] === false)] as const),
  );
}

/** Whether the document grants this flag to the principal (before the request narrows it). */
export function flagGranted(doc: PolicyDocument, principal: string, flag: string): boolean {
  return isOn(principalOf(doc, principal).flags ?? {}, flag);
}

function isOn(flags: Readonly<Record<string, boolean>>, flag: string): boolean {
  return Object.hasOwn(flags, flag) && flags[flag] === true;
}
