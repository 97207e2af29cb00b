import type { CallTrace, TraceStep } from "./trace.js";
import { durationText } from "./duration-text.js";
import { roundMs as round, stepPairs } from "./trace-pairs.js";

export interface TraceHtmlOptions {
  readonly generatedAt: string;
  /** What made the page, named in its header. @default "warden trace --html" */
  readonly generator?: string;
  /** A link above the timeline (the web inbox's way back to its Calls page); a file has none. */
  readonly back?: { readonly href: string; readonly label: string };
  /** A line under the header saying what the page leaves out (a person sees only their own calls). */
  readonly note?: string;
  /** Reload the page this often (a call still open, on the web inbox): the page itself runs no script. */
  readonly refreshSeconds?: number;
}

/**
 * A call's timeline as one self-contained HTML page (`warden trace ID --html FILE`, and a call
 * opened on the web inbox's Calls page): inline CSS, no script, and a Content-Security-Policy that
 * lets the page load nothing, so it can be opened anywhere, mailed or attached to a ticket.
 * Every call of the tree shares one time axis: each stage is a bar from the event it answers to
 * the event it wrote (an approval from its request to the decision, a run from its start to its
 * result), child calls are nested under their parent.
 * Nested calls keep the time axis: their labels move right, their bars stay on it.
 * Every value from the stream is escaped: args and results are whatever a caller or tool wrote.
 */
export function traceHtml(root: CallTrace, opts: TraceHtmlOptions): string {
  const generator = opts.generator ?? "warden trace --html";
  const t0 = Date.parse(root.steps[0]?.ts ?? opts.generatedAt);
  const now = Date.parse(opts.generatedAt);
  // a call still waiting for a person: its wait runs to the moment the page was made
  const waiting = allCalls(root).some((c) => waitingSince(c) !== undefined);
  const end = Math.max(t0, ...allCalls(root).flatMap((c) => c.steps.map((s) => Date.parse(s.ts))), waiting ? now : t0);
  const span = Math.max(1, end - t0);
  const axis = { t0, span, now };
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
${opts.refreshSeconds === undefined ? "" : `<meta http-equiv="refresh" content="${Math.max(1, Math.round(opts.refreshSeconds))}">\n`}<meta name="generator" content="${esc(generator)}">
<title>Warden trace ${esc(root.callId)} (${esc(root.tool)})</title>
<style>${CSS}</style>
</head>
<body>
<header>
${opts.back === undefined ? "" : `<nav><a class="back" href="${esc(opts.back.href)}">${esc(opts.back.label)}</a></nav>\n`}<h1>${esc(root.tool)} <span class="status s-${esc(root.status)}">${esc(root.status)}</span></h1>
<p>call <code>${esc(root.callId)}</code> in domain <code>${esc(root.domain)}</code>, by <b>${esc(root.principal)}</b> in ${esc(root.mode)} mode, run <code>${esc(root.correlationId)}</code></p>
<p>from ${esc(root.steps[0]?.ts ?? "?")} for ${esc(duration(root.totalMs))}; ${childCount(root)}; generated ${esc(opts.generatedAt)} by <code>${esc(generator)}</code></p>
${opts.note === undefined ? "" : `<p class="note">${esc(opts.note)}</p>\n`}<ul class="legend">${LEGEND.map(([k, label]) => `<li><span class="swatch k-${k}"></span>${label}</li>`).join("")}</ul>
</header>
<main>
<div class="row axis" aria-hidden="true"><span class="label">time since the request</span><span class="track">${ticks(span)}</span><span class="dur"></span></div>
${callSection(root, axis, 0)}
</main>
</body>
</html>
`;
}

interface Axis {
  readonly t0: number;
  readonly span: number;
  /** When the page was made. */
  readonly now: number;
}

/** The request a call still waits on a person for: its last ApprovalRequested, when nothing answered it and the call is open. */
function waitingSince(c: CallTrace): TraceStep | undefined {
  if (c.status !== "awaiting_approval") return undefined;
  const i = c.steps.findLastIndex((s) => s.type === "ApprovalRequested");
  if (i < 0 || c.steps.slice(i + 1).some((s) => s.type === "ApprovalGranted" || s.type === "ApprovalDenied" || s.type === "ApprovalExpired")) return undefined;
  return c.steps[i];
}

/** The bar of a wait still going on: from the request to when the page was made, with whom it waits for. */
function waitingRow(c: CallTrace, axis: Axis): string {
  const asked = waitingSince(c);
  if (asked === undefined) return "";
  const from = Date.parse(asked.ts);
  const who = asked.deciders === undefined ? "a person" : asked.deciders.length <= 3 ? orList(asked.deciders) : `${orList(asked.deciders.slice(0, 3))} or ${asked.deciders.length - 3} more`;
  const left = ((from - axis.t0) / axis.span) * 100;
  const width = ((axis.now - from) / axis.span) * 100;
  const expires = asked.expiresAt === undefined ? "" : `; the request expires at ${asked.expiresAt}`;
  return `<div class="row step waiting k-approval" data-type="waiting">
<span class="label"><b>waiting for ${esc(who)}</b></span>
<span class="track"><span class="bar" style="left:${pct(left)}%;width:${pct(width)}%"></span></span>
<span class="dur">${esc(durationText(axis.now - from))} so far</span>
<span class="what">${esc(`asked at ${asked.ts}, still waiting when this page was made (${new Date(axis.now).toISOString()})${expires}`)}</span>
</div>`;
}

function orList(names: readonly string[]): string {
  return names.length <= 1 ? (names[0] ?? "") : `${names.slice(0, -1).join(", ")} or ${names.at(-1)}`;
}

function callSection(c: CallTrace, axis: Axis, depth: number): string {
  const bars = [...c.steps.map((s, i) => stepRow(c, s, i, axis)), waitingRow(c, axis)].filter((r) => r !== "").join("\n");
  const violations =
    c.violations.length === 0
      ? ""
      : `<ul class="violations">${c.violations.map((v) => `<li>VIOLATION <b>${esc(v.kind)}</b> at ${esc(v.type)} (seq ${v.seq}): ${esc(v.detail)}</li>`).join("")}</ul>`;
  const children = c.children.length === 0 ? "" : `<div class="children">\n${c.children.map((k) => callSection(k, axis, depth + 1)).join("\n")}\n</div>`;
  return `<section class="call depth-${Math.min(depth, 4)}" id="call-${esc(c.callId)}" data-call-id="${esc(c.callId)}">
<h2>${depth === 0 ? "" : "child call "}<code>${esc(c.callId)}</code> ${esc(c.tool)} <span class="status s-${esc(c.status)}">${esc(c.status)}</span> <small>by ${esc(c.principal)} (${esc(c.mode)})${c.parentCallId === undefined ? "" : `, child of <code>${esc(c.parentCallId)}</code>`}, ${esc(duration(c.totalMs))}</small></h2>
<div class="steps">
${bars}
</div>
${violations}
<details><summary>every event of ${esc(c.callId)} in full</summary>
<table><thead><tr><th>seq</th><th>time</th><th>event</th><th>by</th><th>details</th></tr></thead><tbody>
${c.steps.map((s) => `<tr><td>${s.seq}</td><td>${esc(s.ts)}</td><td>${esc(s.type)}</td><td>${esc(s.actor)}</td><td>${stepPairs(s).map((p) => `<code>${esc(p)}</code>`).join(" ")}</td></tr>`).join("\n")}
</tbody></table>
</details>
${children}
</section>`;
}

function stepRow(c: CallTrace, s: TraceStep, i: number, axis: Axis): string {
  const at = Date.parse(s.ts);
  const from = Date.parse(startOf(c.steps, i));
  const left = ((from - axis.t0) / axis.span) * 100;
  const width = ((at - from) / axis.span) * 100;
  const kind = kindOf(s);
  const summary = stepPairs(s, true).join(" ");
  return `<div class="row step k-${kind}" data-type="${esc(s.type)}" title="${esc(`${s.type} by ${s.actor} at ${s.ts}: ${summary}`)}">
<span class="label"><b>${esc(s.type)}</b> ${esc(s.actor)}</span>
<span class="track"><span class="bar" style="left:${pct(left)}%;width:${pct(width)}%"></span></span>
<span class="dur">${esc(duration(at - from))}</span>
<span class="what">${esc(summary)}</span>
</div>`;
}

/** Where a stage's bar begins: the event it answers (an approval decision its request, a result its start). */
function startOf(steps: readonly TraceStep[], i: number): string {
  const s = steps[i]!;
  const last = (type: TraceStep["type"]) => steps.slice(0, i).findLast((p) => p.type === type)?.ts;
  if (s.type === "ApprovalGranted" || s.type === "ApprovalDenied" || s.type === "ApprovalExpired") return last("ApprovalRequested") ?? steps[i - 1]?.ts ?? s.ts;
  if (s.type === "ToolCallFinished" || s.type === "ToolCallOutcomeUnknown" || s.type === "ToolCallLateResult") return last("ToolCallStarted") ?? steps[i - 1]?.ts ?? s.ts;
  return steps[i - 1]?.ts ?? s.ts;
}

type Kind = "request" | "stage" | "approval" | "run" | "refused" | "late";

const LEGEND: readonly (readonly [Kind, string])[] = [
  ["request", "request"],
  ["stage", "registry / policy / subagent turn"],
  ["approval", "waiting for a person"],
  ["run", "the tool running"],
  ["refused", "refused, failed, unknown or cancelled"],
  ["late", "late result"],
];

function kindOf(s: TraceStep): Kind {
  switch (s.type) {
    case "ToolCallRequested":
      return "request";
    case "ApprovalRequested":
    case "ApprovalGranted":
    case "SessionGrantRevoked":
      return "approval";
    case "ApprovalDenied":
    case "ApprovalExpired":
    case "ToolCallRejected":
    case "ToolCallOutcomeUnknown":
    case "ToolCallCancelled":
      return "refused";
    case "ToolCallStarted":
      return "run";
    case "ToolCallFinished":
    case "ToolResultValidated":
      return s.ok === false ? "refused" : "run";
    case "ToolCallLateResult":
      return "late";
    default:
      return "stage";
  }
}

function childCount(root: CallTrace): string {
  const n = allCalls(root).length - 1;
  return n === 0 ? "no child calls" : `${n} child call${n === 1 ? "" : "s"}`;
}

function allCalls(c: CallTrace): CallTrace[] {
  return [c, ...c.children.flatMap(allCalls)];
}

function ticks(span: number): string {
  return [0, 0.25, 0.5, 0.75, 1].map((f) => `<span class="tick" style="left:${pct(f * 100)}%">${esc(duration(f * span))}</span>`).join("");
}

function duration(ms: number): string {
  return ms >= 10_000 ? `${Math.round(ms / 100) / 10}s` : `${round(ms)}ms`;
}

function pct(n: number): string {
  return String(Math.round(Math.min(100, Math.max(0, n)) * 100) / 100);
}

const ESCAPES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Text for HTML content and quoted attributes. */
export function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

const CSS = `
:root{--fg:#1d2330;--muted:#5b6475;--line:#d9dde5;--bg:#fff;--request:#7b8794;--stage:#3d7bd9;--approval:#d99a1e;--run:#2f9e66;--refused:#d14343;--late:#8e5bd6}
*{box-sizing:border-box}
body{margin:0;padding:1.5rem 2rem;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
h1{font-size:1.4rem;margin:0 0 .3rem}
h2{font-size:1rem;margin:.2rem 0 .4rem;font-weight:600}
h2 small{font-weight:400;color:var(--muted)}
header p{margin:.15rem 0;color:var(--muted)}
nav{margin:0 0 .6rem}.back{color:var(--stage);font-weight:600}.back:focus-visible{outline:2px solid var(--stage);outline-offset:2px}
header p.note{color:var(--fg)}
code{font:12px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.legend{list-style:none;display:flex;flex-wrap:wrap;gap:1rem;padding:0;margin:.6rem 0 1rem;color:var(--muted)}
.swatch{display:inline-block;width:.9rem;height:.6rem;border-radius:2px;margin-right:.35rem;vertical-align:middle}
.status{font-size:.8rem;padding:.05rem .45rem;border-radius:.6rem;background:#eef1f5;vertical-align:middle}
.s-succeeded{background:#dff3e8;color:#17613d}.s-failed,.s-rejected,.s-denied,.s-approval_denied,.s-expired,.s-outcome_unknown,.s-cancelled{background:#fbe3e3;color:#8f1f1f}
.row{display:grid;grid-template-columns:18rem 1fr 5.5rem;gap:.6rem;align-items:center;min-height:1.5rem}
.row .what{grid-column:1/-1;color:var(--muted);font:12px ui-monospace,Menlo,Consolas,monospace;overflow-wrap:anywhere;margin:-.15rem 0 .25rem 1rem}
.label{white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.track{position:relative;height:.9rem;background:repeating-linear-gradient(90deg,transparent 0 calc(25% - 1px),var(--line) calc(25% - 1px) 25%);border-left:1px solid var(--line)}
.bar{position:absolute;top:0;bottom:0;min-width:3px;border-radius:2px}
.dur{text-align:right;color:var(--muted);font-variant-numeric:tabular-nums}
.axis .track{background:none;border-left:0;height:1.2rem}
.tick{position:absolute;transform:translateX(-50%);font-size:11px;color:var(--muted);white-space:nowrap}
.tick:first-child{transform:none}.tick:last-child{transform:translateX(-100%)}
.k-request .bar,.k-request.swatch{background:var(--request)}.k-stage .bar,.k-stage.swatch{background:var(--stage)}
.k-approval .bar,.k-approval.swatch{background:var(--approval)}.k-run .bar,.k-run.swatch{background:var(--run)}
.k-refused .bar,.k-refused.swatch{background:var(--refused)}.k-late .bar,.k-late.swatch{background:var(--late)}
.call{border-top:1px solid var(--line);padding:.6rem 0 .4rem}
.children{margin:0;padding:0}
${[1, 2, 3, 4].map((d) => `.depth-${d}>h2,.depth-${d}>.steps>.row>.label,.depth-${d}>.steps>.row>.what,.depth-${d}>details,.depth-${d}>.violations{margin-left:${1.5 * d}rem}.depth-${d}>.steps>.row>.label{border-left:3px solid var(--line);padding-left:.5rem}`).join("\n")}
.violations{color:var(--refused);margin:.3rem 0}
details{margin:.3rem 0 .2rem}summary{cursor:pointer;color:var(--muted)}
table{border-collapse:collapse;margin-top:.4rem;width:100%}th,td{border-bottom:1px solid var(--line);padding:.2rem .4rem;text-align:left;vertical-align:top}
td code{overflow-wrap:anywhere}
`;
