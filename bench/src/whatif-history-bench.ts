import { parsePolicyDocument, whatIf, type HistoryRecord, type RecordedDecision } from "@warden/policy-engine";
import { BENCH_SUM_RULE, benchPayRecord } from "./bench-pay.js";

/**
 * What `warden policy whatif --history` costs as the recorded history grows (docs/policy.md,
 * History conditions): N recorded decisions of one run, each with every earlier call of that run
 * as history, replayed through a document with a sum limit and an `absent` over the run. Prints
 * the time per replayed decision for each N; a cost per decision that grows with N is the
 * history being walked again for every decision.
 *
 *   node bench/dist/whatif-history-bench.js [N …]
 */
const SIZES = process.argv.length > 2 ? process.argv.slice(2).map(Number) : [500, 1000, 2000, 4000];

const doc = parsePolicyDocument(JSON.stringify({
  version: "bench-whatif",
  principals: { bench: { kind: "agent" } },
  rules: [
    BENCH_SUM_RULE,
    {
      id: "bench.read-first",
      match: { tool: "bench.pay" },
      when: { history: { scope: "run", within: "1h", calls: { tool: "bench.read", outcome: "ok" }, same: ["account"], absent: true } },
      effect: "require_approval",
      reason: "a payment nobody read for",
    },
  ],
}));
if (!doc.ok) throw new Error(doc.error.message);

const tool = benchPayRecord("2030-01-01T00:00:00.000Z");

function recorded(n: number): { decisions: RecordedDecision[]; history: HistoryRecord[] } {
  const start = Date.parse("2030-01-01T00:10:00.000Z");
  const decisions: RecordedDecision[] = [];
  const history: HistoryRecord[] = [];
  for (let i = 0; i < n; i++) {
    // one call every 100 ms: all of them inside each other's one-hour window
    const at = new Date(start + i * 100).toISOString();
    const args = { account: `A-${i % 50}`, amount: 10 };
    const callId = `c${String(i).padStart(7, "0")}`;
    decisions.push({
      callId, requestedAt: at, tool: "bench.pay", version: "1.0.0", descriptorHash: tool.descriptorHash, principal: "bench", mode: "plan",
      flags: {}, scope: null, decision: "allow", ruleIds: [], reason: "recorded", policyVersion: "before", runId: "run-1", args,
    });
    history.push({ callId, tool: "bench.pay", principal: "bench", runId: "run-1", args, at, outcome: "ok", endedAt: new Date(start + i * 100 + 50).toISOString() });
  }
  return { decisions, history };
}

process.stdout.write("recorded decisions (one run)   ms in all   µs per decision\n");
for (const n of SIZES) {
  const { decisions, history } = recorded(n);
  whatIf(doc.value, decisions.slice(0, 50), [tool], { history: history.slice(0, 50) });
  const t0 = performance.now();
  const report = whatIf(doc.value, decisions, [tool], { history });
  const ms = performance.now() - t0;
  if (report.replayed !== n) throw new Error(`replayed ${report.replayed} of ${n}`);
  process.stdout.write(`${String(n).padStart(30)}   ${ms.toFixed(0).padStart(9)}   ${((ms * 1000) / n).toFixed(0).padStart(15)}\n`);
}
