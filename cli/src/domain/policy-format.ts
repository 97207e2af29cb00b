import type { EnvFile } from "@warden/identity";
import type { DecideResult, PolicyCheck, WhatIfChange, WhatIfReport } from "@warden/policy-engine";

/** What `policy check` compared the document with, or why it did not. */
export interface CheckedAgainst {
  tools: { source: "registry"; count: number } | { source: "file"; file: string; count: number } | { source: "skipped"; reason: string };
  identities: { source: "warden_home"; dir: string; count: number } | { source: "skipped"; reason: string };
}

/** The principals a home has identities for: its people and agents, and the principals its subagent service acts as. */
export function principalsOfHome(env: EnvFile): string[] {
  const out = new Set<string>();
  for (const [name, entry] of Object.entries(env.identities)) {
    if (entry.revokedAt !== undefined) continue;
    const spec = entry.spec;
    if (spec.kind === "human" || spec.kind === "agent") out.add(name);
    if (spec.kind === "subagent") for (const p of spec.principals) out.add(p);
  }
  return [...out].sort();
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** The last line of `policy check`: counts, and what was (not) checked. */
export function checkSummary(file: string, check: PolicyCheck, against: CheckedAgainst): string {
  const counts = `${file}: ${plural(check.errors.length, "error")}, ${plural(check.warnings.length, "warning")}`;
  if (!check.ok) return `${counts} (not linted until it is valid)`;
  const t = against.tools;
  const tools =
    t.source === "registry"
      ? `tool names checked against ${plural(t.count, "registered tool")}`
      : t.source === "file"
        ? `tool names checked against ${plural(t.count, "tool")} of ${t.file}`
        : `tool names not checked (${t.reason})`;
  const i = against.identities;
  const people = i.source === "warden_home" ? `principals checked against ${plural(i.count, "identity")} in ${i.dir}` : `principals not checked against identities (${i.reason})`;
  return `${counts}; ${tools}; ${people}`;
}

/** `policy decide` for people: the decision first, then why, what the caller sees and what was left out. */
export function decideText(file: string, r: DecideResult, args?: ArgsVerdict): string {
  const q = r.request;
  const who = `${q.principal} in ${q.mode} mode${q.scope === null ? "" : `, scope ${q.scope}`}${Object.keys(q.flags).length === 0 ? "" : `, flags ${flagsText(q.flags)}`}`;
  const lines = [
    `${r.decision}  ${r.tool.name}@${r.tool.version} (${r.tool.grade}) for ${who}`,
    `  rules:  ${r.ruleIds.join(", ")}`,
    `  reason: ${r.reason}`,
    `  policy: ${r.policyVersion} (${file})`,
    ...(r.quorum === undefined ? [] : [`  quorum: ${r.quorum.approvers} distinct approver${r.quorum.approvers === 1 ? "" : "s"} [${r.quorum.ruleId}: ${r.quorum.reason}]`]),
  ];
  if (r.shadow !== undefined) {
    const agrees = r.shadow.decision === r.decision ? "agrees" : "disagrees";
    lines.push(`  shadow: ${r.shadow.shadowRuleIds.join(", ")} would make it ${r.shadow.decision} (${r.shadow.ruleIds.join(", ")}): ${agrees}; shadow rules record, never decide`);
  }
  if (args !== undefined && !args.valid) lines.unshift(`the registry refuses these args before policy (INVALID_ARGS): ${args.errors.map((e) => `${e.path} ${e.message}`).join("; ")}`);
  const view = r.toolView;
  const inView = view.tools.some((t) => t.name === r.tool.name);
  lines.push(
    `  view:   ${plural(view.tools.length, "tool")} shown to ${q.principal} in ${q.mode} mode${view.tools.length === 0 ? "" : `: ${view.tools.map((t) => `${t.name}${t.decision === "require_approval" ? " (approval)" : ""}`).join(", ")}`}; ${r.tool.name} ${inView ? "is" : "is not"} among them`,
  );
  for (const h of view.hidden) lines.push(`          hidden ${h.name}: ${h.reason}`);
  for (const h of r.history ?? []) {
    const total = h.sum === undefined ? "" : `, sum ${h.sum}${h.own === undefined ? "" : ` + ${h.own}`}`;
    const calls = h.matched.length === 0 ? "none" : h.matched.join(", ");
    lines.push(`  history: ${h.ruleId} ${h.holds ? "holds" : "does not hold"} over ${h.scope} ${h.holder}: ${h.count} earlier call${h.count === 1 ? "" : "s"}${total} (${calls})`);
  }
  for (const n of r.notEvaluated) lines.push(`  not decided offline: ${n.detail}`);
  return lines.join("\n");
}

/** How the registry would judge the request's args (only when it has args). */
export interface ArgsVerdict {
  readonly valid: boolean;
  readonly errors: readonly { readonly path: string; readonly message: string }[];
}

function flagsText(flags: Readonly<Record<string, boolean>>): string {
  return Object.entries(flags)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(",");
}

/** What `policy whatif` read, besides the report. */
export interface WhatIfScope {
  readonly file: string;
  readonly since: string | null;
  readonly until: string | null;
  readonly requested: number;
  readonly undecided: number;
  /** Rules' history conditions replayed over the admitted calls read from the stream since then. */
  readonly history?: { readonly since: string | null; readonly calls: number };
}

const GATE_NAMES: Record<string, string> = {
  rate_limit: "rate limits",
  principal_budget: "the principal budget",
  run_budget: "the run budget",
  delegation: "the delegation chain",
  descriptor: "a descriptor gone at the time",
  ledger_budget: "ledger budgets",
  history: "history conditions",
  descriptor_unknown: "a descriptor the registry no longer has",
};

/** `policy whatif` for people: each change with its count and examples, then what was not replayed. */
export function whatifText(scope: WhatIfScope, r: WhatIfReport): string {
  const range = `${scope.since ?? "the stream's start"} → ${scope.until ?? "now"}`;
  const lines = [
    `what if ${r.candidateVersion} (${scope.file}) had decided the ${plural(scope.requested, "call")} requested ${range}:`,
    `  ${plural(r.replayed, "decision")} replayed (recorded under ${r.recordedUnder.join(", ") || "-"}): ${r.changed} would change, ${r.unchanged} would not${r.sameDecisionOtherRules > 0 ? ` (${r.sameDecisionOtherRules} of them by other rules)` : ""}`,
  ];
  if (scope.history !== undefined) {
    lines.push(`  history conditions replayed over ${plural(scope.history.calls, "admitted call")} read from ${scope.history.since ?? "the stream's start"}`);
  }
  for (const c of r.changes) lines.push("", ...changeText(c));
  const skipped = Object.entries(r.notReplayed).filter(([, n]) => (n ?? 0) > 0);
  if (skipped.length > 0 || scope.undecided > 0) lines.push("");
  if (skipped.length > 0) {
    lines.push(`not replayed (they depend on history, not on the document alone): ${skipped.map(([k, n]) => `${n} decided by ${GATE_NAMES[k] ?? k}`).join(", ")}`);
  }
  if (scope.undecided > 0) lines.push(`${plural(scope.undecided, "call")} had no policy decision (refused by the registry, or still open)`);
  if (r.candidateHistoryGates.length > 0) {
    lines.push(`the candidate's ${r.candidateHistoryGates.join(", ")} are not replayed: a call allowed above may still be refused by them`);
  }
  return lines.join("\n");
}

function changeText(c: WhatIfChange): string[] {
  const out = [`${c.from.decision} → ${c.to.decision}: ${plural(c.count, "call")}, by ${c.to.ruleIds.join(", ")} (was ${c.from.ruleIds.join(", ")})`];
  for (const e of c.examples) {
    out.push(`  ${e.requestedAt}  ${e.callId}  ${e.tool} by ${e.principal} (${e.mode}): ${e.reasonAfter}`);
  }
  if (c.count > c.examples.length) out.push(`  … and ${c.count - c.examples.length} more (--json lists every call id)`);
  return out;
}
