import { checkWireNames, resolveToolName, toWireName } from "@warden/contracts/subjects";
import {
  DEFAULT_VIEW_MAX_TOOLS,
  GRADES,
  levelOf,
  type HiddenTool,
  type ToolDescriptor,
  type ToolIntent,
  type ToolRecord,
  type ToolView,
  type ToolViewEntry,
  type ToolViewOmitted,
  type ToolViewQuery,
} from "@warden/contracts/descriptor";
import { type PolicyDocument } from "@warden/contracts/policy";
import { newestEnabled, versionsByName } from "./tool-versions.js";
import { rankCandidates, scoreTool, termsOf } from "./resolve-intent.js";
import { toolVisibility } from "./visibility.js";

function hidden(r: ToolRecord, reason: HiddenTool["reason"], detail: string, ruleIds: readonly string[] = []): HiddenTool {
  return { name: r.descriptor.name, version: r.descriptor.version, grade: r.descriptor.grade, reason, detail, ruleIds: [...ruleIds] };
}

function entry(r: ToolRecord, decision: ToolViewEntry["decision"], reason: string, ruleIds: readonly string[]): ToolViewEntry {
  const d = r.descriptor;
  return {
    name: d.name,
    wireName: toWireName(d.name),
    version: d.version,
    title: d.title,
    description: d.actsAs === "caller" ? `${d.description} ${ACTS_AS_CALLER_NOTE}` : d.description,
    grade: d.grade,
    level: levelOf(d),
    ...(d.actionType === undefined ? {} : { actionType: d.actionType }),
    inputSchema: d.inputSchema,
    decision,
    reason,
    ruleIds: [...ruleIds],
    ...actsAsOf(d),
  };
}

/** What the model reads of a tool that acts with its caller's credentials (TM-26: on whose behalf it acts). */
const ACTS_AS_CALLER_NOTE = "It acts on behalf of the person or agent you work for, with their own credentials.";

/** `caller` or `service` for a tool that uses credentials; nothing for one that uses none. */
function actsAsOf(d: ToolDescriptor): Pick<ToolViewEntry, "actsAs"> {
  if (d.actsAs !== undefined) return { actsAs: d.actsAs };
  return d.secrets !== undefined && d.secrets.length > 0 ? { actsAs: "service" } : {};
}

/**
 * What one caller sees (pure): for each tool name its newest enabled version, if the policy
 * would not deny the call and the caller's mode may see its grade. With `explain`, every tool
 * left out is in `hidden` with its reason; without it the list stays empty, since it names
 * tools the caller may not use.
 */
export function compileToolView(
  records: Iterable<ToolRecord>,
  doc: PolicyDocument,
  query: ToolViewQuery,
  options: {
    readonly explain?: boolean;
    /** The domains with a live executor: a tool of any other is hidden `no_executor` (its call would be refused UNAVAILABLE). Absent: not checked. */
    readonly liveDomains?: ReadonlySet<string>;
    /** Resolve this intent: show only its best `limit` (default 5) candidates, ranked, and say why in `candidates`. */
    readonly intent?: ToolIntent;
    readonly limit?: number;
    /** Without an intent: show at most this many tools, ranked (default the document's `views.maxTools`, else DEFAULT_VIEW_MAX_TOOLS). */
    readonly maxTools?: number;
  } = {},
): ToolView {
  const allowed = query.only === undefined ? undefined : new Set(query.only.map((n) => resolveToolName(n) ?? n));
  const shown: { record: ToolRecord; entry: ToolViewEntry }[] = [];
  const out: HiddenTool[] = [];
  const groups = [...versionsByName(records)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [name, versions] of groups) {
    const newest = versions[0]!;
    if (allowed !== undefined && !allowed.has(name)) {
      out.push(hidden(newest, "not_in_allowed_tools", `${name} is not among the tools this caller may use`));
      continue;
    }
    const record = newestEnabled(versions);
    if (record === undefined) {
      out.push(hidden(newest, "disabled", `${name} has no enabled version (newest ${newest.descriptor.version} is ${newest.status})`));
      continue;
    }
    const v = toolVisibility(doc, record.descriptor, query);
    if (!v.visible) {
      out.push(hidden(record, v.reason, v.detail, v.ruleIds));
      continue;
    }
    const domain = record.descriptor.name.split(".")[0]!;
    if (options.liveDomains !== undefined && !options.liveDomains.has(domain)) {
      out.push(hidden(record, "no_executor", `no executor of domain ${domain} is running: a call would be refused UNAVAILABLE`, ["executor.liveness"]));
      continue;
    }
    const decision = v.evaluation.decision === "require_approval" ? "require_approval" : "allow";
    shown.push({ record, entry: entry(record, decision, v.evaluation.reason, v.evaluation.ruleIds) });
  }
  // a model answers with wire names: an ambiguous or unusable one would call the wrong tool
  const bad = new Map<string, { detail: string; ruleId: string }>();
  for (const p of checkWireNames(shown.map((s) => s.entry.name))) {
    if (p.problem === "collision") {
      const detail = `wire name ${p.wireName} is shared by ${p.other ?? "?"} and ${p.name}; both are hidden so a model cannot call the wrong one`;
      bad.set(p.name, { detail, ruleId: "wire_name.collision" });
      if (p.other !== undefined) bad.set(p.other, { detail, ruleId: "wire_name.collision" });
    } else {
      bad.set(p.name, { detail: `${p.name} has no usable wire name (${p.wireName}: ${p.problem.replace(/_/g, " ")})`, ruleId: "wire_name.invalid" });
    }
  }
  const usable: { record: ToolRecord; entry: ToolViewEntry }[] = [];
  for (const s of shown) {
    const problem = bad.get(s.entry.name);
    if (problem === undefined) usable.push(s);
    // no hidden reason names wire names; policy_denied with its own rule id is the closest
    else out.push(hidden(s.record, "policy_denied", problem.detail, [problem.ruleId]));
  }
  if (options.intent === undefined) {
    const cap = viewCapOf(doc, options.maxTools);
    if (usable.length <= cap.maxTools) return { query, policyVersion: doc.version, tools: usable.map((s) => s.entry), hidden: options.explain === true ? out : [] };
    // too many for a model to choose well among: the first by rank stay, listed by name as always
    const ranked = [...usable].sort(byViewRank);
    const left = ranked.slice(cap.maxTools);
    const leftOut = new Set(left.map((s) => s.entry.name));
    for (const [i, s] of left.entries()) {
      const detail = `the view lists the first ${cap.maxTools} of ${usable.length} tools by rank (grade, level, no person needed, name); this one ranks ${cap.maxTools + i + 1}`;
      out.push(hidden(s.record, "over_view_cap", detail, [VIEW_CAP_RULE]));
    }
    const omitted: ToolViewOmitted = {
      count: left.length,
      ...cap,
      hint: `${left.length} more tools this caller may use are not listed (a view without an intent shows at most ${cap.maxTools}): ask for a view with an intent (a goal, domain, grade or action type) to get the tools that fit a task, or with a larger maxTools`,
    };
    return { query, policyVersion: doc.version, tools: usable.filter((s) => !leftOut.has(s.entry.name)).map((s) => s.entry), hidden: options.explain === true ? out : [], omitted };
  }
  // an intent narrows what the view shows anyway: a candidate is never a tool the caller could not see
  const terms = termsOf(options.intent);
  const scored = usable.map((s) => ({ s, c: scoreTool(s.record.descriptor, options.intent!, terms) }));
  const ranked = rankCandidates(scored.flatMap((x) => (x.c === undefined ? [] : [x.c])), options.intent.actionType);
  const limit = options.limit ?? 5;
  const chosen = ranked.slice(0, limit);
  const kept = new Set(chosen.map((c) => c.name));
  for (const { s, c } of scored) {
    if (kept.has(s.entry.name)) continue;
    const detail = c === undefined ? "it does not match the intent (its domain, grade or words)" : `it ranks below the ${limit} best matches (score ${c.score})`;
    out.push(hidden(s.record, "not_matching_intent", detail, ["intent.resolve"]));
  }
  const byName = new Map(usable.map((s) => [s.entry.name, s.entry]));
  return { query, policyVersion: doc.version, tools: chosen.map((c) => byName.get(c.name)!), hidden: options.explain === true ? out : [], candidates: chosen };
}

/** The rule id a tool left out of a capped view names. */
export const VIEW_CAP_RULE = "view.max_tools";

/** A view's cap without an intent, and where it comes from: the request, else the document, else the default. */
export function viewCapOf(doc: PolicyDocument, requested: number | undefined): Pick<ToolViewOmitted, "maxTools" | "capFrom"> {
  if (requested !== undefined) return { maxTools: requested, capFrom: "request" };
  const fromDoc = doc.views?.maxTools;
  return fromDoc === undefined ? { maxTools: DEFAULT_VIEW_MAX_TOOLS, capFrom: "default" } : { maxTools: fromDoc, capFrom: "policy" };
}

/**
 * The default ranking of a view without an intent (docs/architecture.md, ToolView), deterministic:
 * reads before writes before sends (the side-effect grade), then the lower permission level,
 * then tools that run without a person before those that wait for one, then by name.
 */
function byViewRank(a: { record: ToolRecord; entry: ToolViewEntry }, b: { record: ToolRecord; entry: ToolViewEntry }): number {
  const da = a.record.descriptor;
  const db = b.record.descriptor;
  return (
    GRADES.indexOf(da.grade) - GRADES.indexOf(db.grade) ||
    levelOf(da).localeCompare(levelOf(db)) ||
    Number(a.entry.decision === "require_approval") - Number(b.entry.decision === "require_approval") ||
    (da.name < db.name ? -1 : da.name > db.name ? 1 : 0)
  );
}
