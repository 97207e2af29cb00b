import { windowSeconds, type PolicyDocument } from "@warden/contracts/policy";
import { historyRules, type HistoryRecord } from "@warden/policy-engine";
import type { RecordedCall } from "./call-spans.js";

/**
 * The earlier calls of a stretch of the stream as `policy decide --history` takes them, built as
 * the policy's history index is (docs/policy.md, History conditions): a call counts from its
 * admission (a ToolPolicyChecked that is not a deny, at its time) and ends as its result says:
 * finished ok → `ok`; outcome unknown → `unknown` (it may have run); finished not ok, rejected after
 * the decision, approval denied or expired, cancelled → `failed` (released); anything else stays
 * `pending`, as its entry stays held in the index. The tree root comes from the
 * `parentCallId` chain among the calls read (the action type from the tools, in `decideRequest`).
 */
export function historyFromCalls(calls: readonly RecordedCall[]): HistoryRecord[] {
  const parentOf = new Map<string, string | undefined>(calls.map((c) => [c.callId, c.events[0]?.parentCallId]));
  const treeRootOf = (callId: string): string => {
    let at = callId;
    for (let depth = 0; depth < 64; depth++) {
      const parent = parentOf.get(at);
      if (parent === undefined) return at;
      at = parent;
    }
    return at;
  };
  const out: HistoryRecord[] = [];
  for (const c of calls) {
    const checked = c.events.find((e) => e.type === "ToolPolicyChecked");
    if (checked?.type !== "ToolPolicyChecked" || checked.data.decision === "deny") continue;
    out.push({
      callId: c.callId,
      tool: checked.tool,
      principal: checked.principal,
      runId: checked.correlationId,
      treeRoot: treeRootOf(c.callId),
      args: checked.data.args,
      at: checked.ts,
      ...(checked.data.resultLabels === undefined ? {} : { labels: checked.data.resultLabels }),
      ...endingOf(c),
    });
  }
  return out.sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
}

function endingOf(c: RecordedCall): { outcome: HistoryRecord["outcome"]; endedAt?: string } {
  for (const e of c.events) {
    if (e.type === "ToolCallFinished") return { outcome: e.data.ok ? "ok" : "failed", endedAt: e.ts };
    if (e.type === "ToolCallOutcomeUnknown") return { outcome: "unknown", endedAt: e.ts };
    // a cancel comes before the call started: it never ran (the stage releases it before a limit refuses)
    if (e.type === "ApprovalDenied" || e.type === "ApprovalExpired" || e.type === "ToolCallCancelled") return { outcome: "failed", endedAt: e.ts };
    // the registry's and the policy's own refusals come before any admission
    if (e.type === "ToolCallRejected" && e.data.stage !== "registry" && e.data.stage !== "policy") return { outcome: "failed", endedAt: e.ts };
  }
  return { outcome: "pending" };
}

/**
 * Where a read of the stream for `--history-from-stream` starts by default: the longest window of
 * the document's history rules before the request's time (at most 24h), so every call a condition
 * could see is read; undefined when the document has no history rule (nothing to read).
 */
export function historySince(doc: PolicyDocument, at: Date): Date | undefined {
  const windows = historyRules(doc).map((r) => windowSeconds(r.when.history.within) ?? 0);
  if (windows.length === 0) return undefined;
  return new Date(at.getTime() - Math.max(...windows) * 1000);
}
