import { type PolicyDocument } from "@warden/contracts/policy";
import { canonicalJson } from "@warden/contracts/json";

/** One difference between two policy documents, as `policy set` shows it before applying. */
export interface PolicyChange {
  /** Where: `rules.no-exports`, `principals.alice.approves`, `budgets.ledgers.team-daily`, `version`. */
  readonly path: string;
  readonly kind: "added" | "removed" | "changed";
  /** One line: `rules.no-exports: added (deny, shadow): exports need a person`. */
  readonly text: string;
}

/**
 * What changes from `before` (the document in force; undefined when none is stored, i.e. the
 * built-in defaults) to `after`, section by section: rules, principals, teams and ledgers by their
 * id or name, every other setting by its path. Order of rules is not a change (deny wins wherever
 * it stands). Pure.
 */
export function diffPolicyDocuments(before: PolicyDocument | undefined, after: PolicyDocument): PolicyChange[] {
  const out: PolicyChange[] = [];
  const b = before;
  leaf(out, "version", b?.version, after.version);
  keyed(out, "principals", entries(b?.principals), entries(after.principals), (p) => p.kind);
  teams(out, b?.teams ?? {}, after.teams ?? {});
  setOf(out, "llm.showWrite", b?.llm.showWrite ?? [], after.llm.showWrite);
  leaf(out, "views.maxTools", b?.views?.maxTools, after.views?.maxTools);
  keyed(
    out,
    "rules",
    (b?.rules ?? []).map((r) => [r.id, r] as const),
    after.rules.map((r) => [r.id, r] as const),
    (r) => `${r.effect}${r.mode === "shadow" ? ", shadow" : ""}): ${r.reason}`,
    true,
  );
  leaf(out, "rateLimits.perPrincipal", b?.rateLimits.perPrincipal, after.rateLimits.perPrincipal);
  leaf(out, "rateLimits.perTool", b?.rateLimits.perTool ?? [], after.rateLimits.perTool);
  leaf(out, "budgets.maxCallsPerRun", b?.budgets.maxCallsPerRun, after.budgets.maxCallsPerRun);
  leaf(out, "budgets.maxCallsPerPrincipal", b?.budgets.maxCallsPerPrincipal, after.budgets.maxCallsPerPrincipal);
  keyed(
    out,
    "budgets.ledgers",
    (b?.budgets.ledgers ?? []).map((l) => [l.id, l] as const),
    (after.budgets.ledgers ?? []).map((l) => [l.id, l] as const),
    (l) => {
      const whose = l.principal !== undefined ? `principal ${l.principal.join(", ")}` : l.team !== undefined ? `team ${l.team}` : `tool ${(l.tool ?? []).join(", ")}`;
      const limits = [...(l.calls === undefined ? [] : [`${l.calls} calls`]), ...(l.cost === undefined ? [] : [`${l.cost} cost units`])].join(", ");
      return `${limits} per ${l.period} for ${whose}`;
    },
  );
  leaf(out, "approvalQuota.maxOpenPerRequester", b?.approvalQuota.maxOpenPerRequester ?? 50, after.approvalQuota.maxOpenPerRequester);
  leaf(out, "approvalTtlSeconds.write", b?.approvalTtlSeconds.write ?? 3600, after.approvalTtlSeconds.write);
  leaf(out, "approvalTtlSeconds.send", b?.approvalTtlSeconds.send ?? 900, after.approvalTtlSeconds.send);
  return out;
}

function entries<T>(record: Readonly<Record<string, T>> | undefined): (readonly [string, T])[] {
  return Object.entries(record ?? {});
}

function show(v: unknown): string {
  return v === undefined ? "(none)" : canonicalJson(v);
}

function leaf(out: PolicyChange[], path: string, before: unknown, after: unknown): void {
  if (same(before, after)) return;
  const kind = before === undefined ? "added" : after === undefined ? "removed" : "changed";
  out.push({ path, kind, text: `${path}: ${show(before)} → ${show(after)}` });
}

function same(a: unknown, b: unknown): boolean {
  return a === b || (a !== undefined && b !== undefined && canonicalJson(a) === canonicalJson(b));
}

/**
 * Entries keyed by id or name: added and removed whole, changed field by field. `parenthesised`:
 * the summary of a rule opens its own parenthesis (`(deny, shadow): reason`).
 */
function keyed<T extends object>(
  out: PolicyChange[],
  section: string,
  before: readonly (readonly [string, T])[],
  after: readonly (readonly [string, T])[],
  summary: (v: T) => string,
  parenthesised = false,
): void {
  const old = new Map(before);
  const now = new Map(after);
  const described = (v: T) => (parenthesised ? ` (${summary(v)}` : `: ${summary(v)}`);
  for (const [key, v] of after) {
    const was = old.get(key);
    const path = `${section}.${key}`;
    if (was === undefined) {
      out.push({ path, kind: "added", text: `${path}: added${described(v)}` });
      continue;
    }
    if (same(was, v)) continue;
    const fields = [...new Set([...Object.keys(was), ...Object.keys(v)])].sort();
    const changed = fields
      .filter((f) => !same((was as Record<string, unknown>)[f], (v as Record<string, unknown>)[f]))
      .map((f) => `${f} ${show((was as Record<string, unknown>)[f])} → ${show((v as Record<string, unknown>)[f])}`);
    out.push({ path, kind: "changed", text: `${path}: ${changed.length > 0 ? changed.join("; ") : `${show(was)} → ${show(v)}`}` });
  }
  for (const [key, v] of before) {
    if (!now.has(key)) out.push({ path: `${section}.${key}`, kind: "removed", text: `${section}.${key}: removed${described(v)}` });
  }
}

function teams(out: PolicyChange[], before: Readonly<Record<string, readonly string[]>>, after: Readonly<Record<string, readonly string[]>>): void {
  for (const [name, members] of Object.entries(after)) {
    const path = `teams.${name}`;
    const was = Object.hasOwn(before, name) ? before[name] : undefined;
    if (was === undefined) out.push({ path, kind: "added", text: `${path}: added: ${members.join(", ")}` });
    else setOf(out, path, was, members, "changed");
  }
  for (const [name, members] of Object.entries(before)) {
    if (!Object.hasOwn(after, name)) out.push({ path: `teams.${name}`, kind: "removed", text: `teams.${name}: removed: ${members.join(", ")}` });
  }
}

function setOf(out: PolicyChange[], path: string, before: readonly string[], after: readonly string[], kind?: PolicyChange["kind"]): void {
  const added = after.filter((x) => !before.includes(x));
  const removed = before.filter((x) => !after.includes(x));
  if (added.length > 0) out.push({ path, kind: kind ?? "added", text: `${path}: added ${added.join(", ")}` });
  if (removed.length > 0) out.push({ path, kind: kind ?? "removed", text: `${path}: removed ${removed.join(", ")}` });
}
