import type { PolicyChange, WhatIfReport } from "@warden/policy-engine";
import { whatifText, type WhatIfScope } from "./policy-format.js";

/** What `policy set` shows before it applies. */
export interface PolicySetPreview {
  readonly file: string;
  /** Who the change will be recorded as: the identity the credentials name. */
  readonly author: string;
  /** The document in force (null: none stored, the built-in defaults). */
  readonly inForce: { readonly version: string | null; readonly revision: number | null };
  readonly version: string;
  readonly changes: readonly PolicyChange[];
  /** The YAML of the two documents, as a unified diff ("" when equal). */
  readonly diff: string;
  readonly whatIf: { readonly scope: WhatIfScope; readonly report: WhatIfReport };
}

/** The preview for people: what changes, the diff, and what the last day's calls would have met. */
export function policySetText(p: PolicySetPreview): string {
  const over = p.inForce.version === null ? "the built-in defaults (no document stored)" : `${p.inForce.version} (revision ${p.inForce.revision})`;
  const lines = [`policy set ${p.file}: ${over} → ${p.version}, as ${p.author}`];
  if (p.changes.length === 0) return lines.join("\n");
  lines.push("", `${p.changes.length} change${p.changes.length === 1 ? "" : "s"}:`, ...p.changes.map((c) => `  ${c.text}`));
  if (p.diff !== "") lines.push("", p.diff);
  lines.push("", whatifText(p.whatIf.scope, p.whatIf.report));
  return lines.join("\n");
}
