import type { ToolView } from "@warden/contracts";
import { renderTable } from "../output.js";

/** The view for people: visible tools, then (with --explain) every hidden one and why. */
export function toolViewText(view: ToolView, explain: boolean): string {
  const q = view.query;
  const flags = Object.entries(q.flags).map(([k, v]) => `${k}=${v}`).join(",") || "none";
  const header = `tools for ${q.principal} in ${q.mode} mode (scope ${q.scope ?? "none"}, flags ${flags}; policy ${view.policyVersion})`;
  const shown =
    view.tools.length === 0
      ? "(no tools visible)"
      : renderTable(view.tools, [
          { title: "NAME", value: (t) => t.name },
          { title: "WIRE NAME", value: (t) => t.wireName },
          { title: "VERSION", value: (t) => t.version },
          { title: "GRADE", value: (t) => t.grade },
          { title: "ON CALL", value: (t) => t.decision },
          { title: "WHY", value: (t) => `${t.reason} [${t.ruleIds.join(", ")}]`, max: 100 },
        ]);
  const parts = [header, "", shown];
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
