import { levelOf, type ToolRecord, type ToolView } from "@warden/contracts/descriptor";
import { renderTable, TEXT_WIDTH } from "../output.js";

/** The view for people: visible tools with their level and action type, then (with --explain) every hidden one and why. */
export function toolViewText(view: ToolView, explain: boolean): string {
  const q = view.query;
  const flags = Object.entries(q.flags).map(([k, v]) => `${k}=${v}`).join(",") || "none";
  const header = `tools for ${q.principal} in ${q.mode} mode (scope ${q.scope ?? "none"}, flags ${flags}; policy ${view.policyVersion})`;
  const shown =
    view.tools.length === 0
      ? "(no tools visible)"
      : renderTable(view.tools, [
          { title: "NAME", value: (t) => t.name },
          { title: "WIRE NAME", value: (t) => t.wireName, min: 9 },
          { title: "VERSION", value: (t) => t.version },
          { title: "GRADE", value: (t) => t.grade },
          // the permission level policy decides on (declared or derived) and the declared action type
          { title: "LEVEL", value: (t) => t.level },
          { title: "ACTION", value: (t) => t.actionType ?? "-" },
          { title: "ON CALL", value: (t) => t.decision },
          // whose credentials it acts with: the caller's own, or the service's (TM-26)
          { title: "ACTS AS", value: (t) => t.actsAs ?? "-" },
          // the reason, then wire names, are cut to fit 100 columns (level and action never); --json has them whole
          { title: "WHY", value: (t) => `${t.reason} [${t.ruleIds.join(", ")}]`, max: 100, min: 20 },
        ], { width: TEXT_WIDTH });
  const parts = [header, "", shown];
  const o = view.omitted;
  if (o !== undefined) {
    const from = o.capFrom === "request" ? "--max-tools" : o.capFrom === "policy" ? "the policy's views.maxTools" : "the default";
    parts.push("", `${o.count} more not listed: a view without an intent shows at most ${o.maxTools} (${from}), reads first;`, "ask with an intent (warden resolve --goal TEXT) or for more (--max-tools N)");
  }
  if (explain) {
    parts.push(
      "",
      view.hidden.length === 0 ? "hidden: none" : "hidden:",
      ...(view.hidden.length === 0
        ? []
        : [
            renderTable(view.hidden, [
              { title: "NAME", value: (h) => h.name },
              { title: "VERSION", value: (h) => h.version },
              { title: "GRADE", value: (h) => h.grade },
              { title: "REASON", value: (h) => h.reason },
              { title: "DETAIL", value: (h) => h.detail, max: 100 },
            ]),
          ]),
    );
  }
  return parts.join("\n");
}

/**
 * `warden tools list` for people: every registered version with its grade, permission level
 * (declared, or derived as policy derives it) and action type, status and what gates it.
 */
export function toolListText(records: readonly ToolRecord[]): string {
  return renderTable(
    records,
    [
      { title: "NAME", value: (t) => t.descriptor.name, min: 12 },
      { title: "VERSION", value: (t) => t.descriptor.version },
      { title: "GRADE", value: (t) => t.descriptor.grade },
      { title: "LEVEL", value: (t) => levelOf(t.descriptor) },
      { title: "ACTION", value: (t) => t.descriptor.actionType ?? "-", min: 6 },
      { title: "STATUS", value: (t) => t.status },
      { title: "FLAG", value: (t) => t.descriptor.featureFlag ?? "-", min: 4 },
      { title: "SCOPES", value: (t) => t.descriptor.scopes.join(",") || "-", min: 6 },
      { title: "REQUIRES", value: (t) => t.descriptor.requiredScopes.join(",") || "-", min: 8 },
    ],
    { width: TEXT_WIDTH },
  );
}
