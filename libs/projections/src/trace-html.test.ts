import { describe, expect, it } from "vitest";
import { buildTrace } from "@warden/projections";
import { syntheticCall } from "@warden/testing";
import { traceHtml } from "./trace-html.js";

const entries = (events: ReturnType<typeof syntheticCall>) => events.map((event, i) => ({ seq: i + 1, event }));

describe("the HTML timeline", () => {
  const hostile = syntheticCall({ callId: "k1", outcome: "failed", parentCallId: "p1", args: { text: "<script>alert(1)</script><img src=x onerror=alert(2)>" } });
  const child = buildTrace(entries(hostile))!;
  const parent = buildTrace(entries(syntheticCall({ callId: "p1", outcome: "approved", tool: "customer.message" })), [child])!;
  const html = traceHtml(parent, { generatedAt: "2030-01-01T00:01:00.000Z" });

  it("is one page that loads nothing: inline CSS, no script, a policy that forbids the rest", () => {
    expect(html.startsWith("<!doctype html>")).toBe(true);
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`);
    expect(html).toContain("<style>");
    expect(html).not.toMatch(/<(script|link|img|iframe|object|embed)\b/i);
    // no tag has an attribute that fetches anything (attribute values and text hold escaped text only)
    const tags = html.replace(/"[^"]*"/g, '""').match(/<[^>]*>/g) ?? [];
    expect(tags.filter((t) => /\s(src|href|action|srcset)=/i.test(t))).toEqual([]);
    expect(/<style>([\s\S]*?)<\/style>/.exec(html)![1]).not.toMatch(/url\(|@import/i);
  });

  it("draws each stage as a bar on one time axis, the approval from its request to the grant", () => {
    for (const type of ["ToolCallRequested", "ToolArgsValidated", "ToolPolicyChecked", "ApprovalRequested", "ApprovalGranted", "ToolCallStarted", "ToolCallFinished"]) {
      expect(html).toContain(`data-type="${type}"`);
    }
    // the synthetic call writes an event every 3ms over 18ms: the grant answers the request at 9ms, written at 12ms
    const grant = /data-type="ApprovalGranted"[\s\S]*?<span class="bar" style="left:([\d.]+)%;width:([\d.]+)%">/.exec(html)!;
    expect(Number(grant[1])).toBeCloseTo(50, 0);
    expect(Number(grant[2])).toBeCloseTo(16.67, 1);
    expect(html).toContain('class="row step k-approval"');
  });

  it("nests a child call inside its parent's section and escapes what callers wrote", () => {
    const parentAt = html.indexOf('<section class="call depth-0" id="call-p1"');
    const childAt = html.indexOf('<section class="call depth-1" id="call-k1"');
    expect(parentAt).toBeGreaterThanOrEqual(0);
    expect(childAt).toBeGreaterThan(parentAt);
    expect(html.indexOf('<div class="children">')).toBeLessThan(childAt);
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).toContain('class="row step k-refused" data-type="ToolCallFinished"');
  });
});

describe("the HTML timeline served by the web inbox", () => {
  const trace = buildTrace(entries(syntheticCall({ callId: "w1", outcome: "approved", args: { q: "<script>alert(1)</script>" } })))!;

  it("names what made it, links back and says what it leaves out, all escaped", () => {
    const html = traceHtml(trace, {
      generatedAt: "2030-01-01T00:01:00.000Z",
      generator: "warden inbox (alice)",
      back: { href: "/calls?x=1&y=2", label: "← Calls <all>" },
      note: "Only alice's own calls; child calls are <another> principal's.",
    });
    expect(html).toContain('<meta name="generator" content="warden inbox (alice)">');
    expect(html).toContain('<nav><a class="back" href="/calls?x=1&amp;y=2">← Calls &lt;all&gt;</a></nav>');
    expect(html).toContain('<p class="note">Only alice&#39;s own calls; child calls are &lt;another&gt; principal&#39;s.</p>');
    expect(html).toContain("by <code>warden inbox (alice)</code>");
    expect(html).not.toContain("<script>");
  });

  it("has no link and no note when written to a file", () => {
    const html = traceHtml(trace, { generatedAt: "2030-01-01T00:01:00.000Z" });
    expect(html).not.toContain("<nav>");
    expect(html).not.toContain('class="note"');
    expect(html).toContain("by <code>warden trace --html</code>");
  });

  it("draws a wait still going on to the moment the page was made, naming who may decide, and reloads when asked", () => {
    const asked = syntheticCall({ callId: "w1", outcome: "approved", tool: "customer.message" });
    const upToRequest = asked.slice(0, asked.findIndex((e) => e.type === "ApprovalRequested") + 1).map((e) => (e.type === "ApprovalRequested" ? { ...e, data: { ...e.data, deciders: ["alice", "carol"] } } : e));
    const waiting = buildTrace(entries(upToRequest))!;
    expect(waiting.status).toBe("awaiting_approval");
    const requestedAt = Date.parse(upToRequest.at(-1)!.ts);
    const page = traceHtml(waiting, { generatedAt: new Date(requestedAt + 125_000).toISOString(), refreshSeconds: 5 });
    const row = /<div class="row step waiting k-approval" data-type="waiting">([\s\S]*?)<\/div>/.exec(page)![1]!;
    expect(row).toContain("<b>waiting for alice or carol</b>");
    expect(row).toContain('<span class="dur">2 min 05 s so far</span>');
    // the axis ends now: the wait is the last 125 s of it
    const bar = /<span class="bar" style="left:([\d.]+)%;width:([\d.]+)%">/.exec(row)!;
    expect(Number(bar[1]) + Number(bar[2])).toBeCloseTo(100, 0);
    expect(page).toContain('<meta http-equiv="refresh" content="5">');
    // a decided call has no such row, and a page made without asking does not reload
    const decided = traceHtml(buildTrace(entries(asked))!, { generatedAt: new Date(requestedAt + 125_000).toISOString() });
    expect(decided).toContain('data-type="ApprovalGranted"');
    expect(decided).not.toContain('data-type="waiting"');
    expect(decided).not.toContain('http-equiv="refresh"');
  });
});
