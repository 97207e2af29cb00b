import type { JsonValue } from "@warden/contracts/json";
import type { ArgCheck, GoldenCase } from "./golden.js";

/** One call the model made for a case, with whether its args fit the tool's inputSchema. */
export interface EvalCall {
  readonly tool: string;
  readonly args: JsonValue | undefined;
  /** undefined when the schema could not be checked here. */
  readonly argsValid: boolean | undefined;
}

export interface CaseOutcome {
  readonly id: string;
  readonly expected: string | null;
  readonly calls: readonly EvalCall[];
  /** The expected tool was called (or, for a none case, nothing was). */
  readonly correct: boolean;
  /** The expected tool's args passed every check (undefined for none cases and misses). */
  readonly argsMatch: boolean | undefined;
  readonly error?: string;
}

export interface EvalReport {
  readonly cases: readonly CaseOutcome[];
  /** Calls of the expected tool / all calls made. */
  readonly precision: number | null;
  /** Cases whose expected tool was called / cases that expect a tool. */
  readonly recall: number | null;
  /** None cases where nothing was called / none cases. */
  readonly abstention: number | null;
  /** Calls whose args fit the tool's schema / calls that could be checked. */
  readonly argValidity: number | null;
  /** Hits whose args passed the case's checks / hits. */
  readonly argMatch: number | null;
}

function at(value: JsonValue | undefined, path: string): JsonValue | undefined {
  let cur: JsonValue | undefined = value;
  for (const key of path.split(".")) {
    if (cur === null || typeof cur !== "object" || Array.isArray(cur)) return undefined;
    cur = cur[key];
  }
  return cur;
}

export function argPasses(args: JsonValue | undefined, check: ArgCheck): boolean {
  const v = at(args, check.path);
  if ("includes" in check) return typeof v === "string" && v.toLowerCase().includes(check.includes.toLowerCase());
  return JSON.stringify(v) === JSON.stringify(check.equals);
}

export function scoreCase(c: GoldenCase, calls: readonly EvalCall[], error?: string): CaseOutcome {
  const base = { id: c.id, expected: c.tool, calls, ...(error === undefined ? {} : { error }) };
  if (c.tool === null) return { ...base, correct: error === undefined && calls.length === 0, argsMatch: undefined };
  const hit = calls.find((k) => k.tool === c.tool);
  return { ...base, correct: hit !== undefined, argsMatch: hit === undefined ? undefined : c.args.every((a) => argPasses(hit.args, a)) };
}

const ratio = (n: number, d: number): number | null => (d === 0 ? null : n / d);

export function report(outcomes: readonly CaseOutcome[]): EvalReport {
  const calls = outcomes.flatMap((o) => o.calls.map((k) => ({ k, expected: o.expected })));
  const expecting = outcomes.filter((o) => o.expected !== null);
  const none = outcomes.filter((o) => o.expected === null);
  const checked = calls.filter(({ k }) => k.argsValid !== undefined);
  const hits = expecting.filter((o) => o.correct);
  return {
    cases: outcomes,
    precision: ratio(calls.filter(({ k, expected }) => k.tool === expected).length, calls.length),
    recall: ratio(hits.length, expecting.length),
    abstention: ratio(none.filter((o) => o.correct).length, none.length),
    argValidity: ratio(checked.filter(({ k }) => k.argsValid === true).length, checked.length),
    argMatch: ratio(hits.filter((o) => o.argsMatch === true).length, hits.length),
  };
}

const pct = (v: number | null) => (v === null ? "n/a" : `${(v * 100).toFixed(0)}%`);

/** The report as text: one line a case, then the metrics. */
export function reportText(r: EvalReport, model: string): string {
  const lines = [`tool-metadata eval with ${model}: ${r.cases.length} golden prompts`, ""];
  for (const o of r.cases) {
    const called = o.calls.length === 0 ? "nothing" : o.calls.map((k) => `${k.tool}${k.argsValid === false ? " (invalid args)" : ""}`).join(", ");
    const verdict = o.correct ? (o.argsMatch === false ? "ok, args differ" : "ok") : "MISS";
    lines.push(`  ${verdict.padEnd(16)} ${o.id.padEnd(16)} expected ${o.expected ?? "nothing"}; called ${called}${o.error ? `; error: ${o.error}` : ""}`);
  }
  lines.push(
    "",
    `  tool-choice precision  ${pct(r.precision)}   (calls of the expected tool / all calls)`,
    `  tool-choice recall     ${pct(r.recall)}   (prompts whose tool was called / prompts that need one)`,
    `  abstention             ${pct(r.abstention)}   (prompts that must call nothing and did not)`,
    `  argument validity      ${pct(r.argValidity)}   (calls whose args fit the tool's schema)`,
    `  argument match         ${pct(r.argMatch)}   (expected calls whose args are the golden ones)`,
  );
  return lines.join("\n");
}
