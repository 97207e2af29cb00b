import { resultLabelsOf, type RunLabelSource } from "@warden/contracts/policy";
import type { ToolRecord } from "@warden/contracts/descriptor";
import type { HistoryRecord } from "./history-replay.js";
import { versionsByName } from "./tool-versions.js";

/** The request whose run's labels are asked: its run and, for a delegated call, the top call of its tree. */
export interface LabelledRunOf {
  readonly runId: string;
  readonly treeRoot?: string;
}

/**
 * The labels a run has read, from a history: each from the earliest result that carried it, as the
 * policy's run key keeps them. A result counts once it ended ok or unknown (it may have run) by
 * `nowMs`; its labels are the ones it records, or else its tool's (`resultLabelsOf` of its newest
 * version in `tools`). A delegated call shares the run of its tree's top call, so the run is that
 * call's when the history holds it.
 */
export function runLabelsFromHistory(history: readonly HistoryRecord[], tools: readonly ToolRecord[], of: LabelledRunOf, nowMs: number): Map<string, RunLabelSource> {
  const runOfCall = new Map(history.map((r) => [r.callId, r.runId]));
  const labelRun = (runId: string, treeRoot: string | undefined) => (treeRoot === undefined ? undefined : runOfCall.get(treeRoot)) ?? runId;
  const run = labelRun(of.runId, of.treeRoot);
  const byName = versionsByName(tools);
  const out = new Map<string, RunLabelSource>();
  for (const r of [...history].sort((a, b) => Date.parse(a.at) - Date.parse(b.at))) {
    if (r.outcome !== "ok" && r.outcome !== "unknown") continue;
    if (Date.parse(r.at) > nowMs || (r.endedAt !== undefined && Date.parse(r.endedAt) > nowMs)) continue;
    if (labelRun(r.runId, r.treeRoot) !== run) continue;
    const descriptor = byName.get(r.tool)?.[0]?.descriptor;
    const labels = r.labels ?? (descriptor === undefined ? [] : resultLabelsOf(descriptor));
    for (const label of labels) if (!out.has(label)) out.set(label, { label, callId: r.callId, tool: r.tool });
  }
  return out;
}
