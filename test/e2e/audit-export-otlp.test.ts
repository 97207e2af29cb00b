import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { trace } from "@opentelemetry/api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolResult } from "@warden/contracts/events";
import { type AgentClient } from "@warden/sdk";
import { startTracing, type Tracing } from "@warden/service-kit";
import type { SubagentDescriptorInput } from "@warden/subagent";
import { callEvents, eventually } from "@warden/testing";
import { runWarden, type CliRan } from "../support/cli.js";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "../support/otlp-receiver.js";
import { childRequests, startSubagentWarden, type SubagentWarden } from "./subagent-fixture.js";

const READER: SubagentDescriptorInput = {
  name: "agent.reader",
  title: "Reader",
  description: "Use when a support question needs looking into with the knowledge base.",
  instructions: "You look things up for a support desk.",
  model: "m-reader",
  allowedTools: ["kb.search"],
};

/** The spans of one call, by name (each name once per call here). */
function ofCall(spans: readonly ReceivedSpan[], callId: string): Map<string, ReceivedSpan> {
  return new Map(spans.filter((s) => s.attributes["warden.call_id"] === callId).map((s) => [s.name, s]));
}

/**
 * `warden audit export --otlp` over a real Warden whose services traced live: the spans it
 * rebuilds from the recorded events are the live trace (the same ids and parents), with the
 * same attributes, a subagent's child call nested under its run and a call still waiting for a
 * person included; run as the built CLI with the auditor's credentials.
 */
describe("audit export --otlp: past calls' spans rebuilt from their events", { timeout: 120_000 }, () => {
  let live: OtlpReceiver;
  let exported: OtlpReceiver;
  let tracing: Tracing;
  let s: SubagentWarden;
  let bot: AgentClient;
  let dir: string;
  let since: string;
  let search: ToolResult;
  let agentSpanId: string;
  let delegated: ToolResult;
  let childCallId: string;
  let held: ToolResult;
  let ran: CliRan;
  const asAuditor = (...args: string[]): Promise<CliRan> => runWarden(s.w.nats.home.dir, "audit", "export", "--otlp", ...args, "--as", "auditor");

  beforeAll(async () => {
    live = await startOtlpReceiver();
    exported = await startOtlpReceiver();
    // the services run in this process and trace live to one receiver; the export goes to the other
    tracing = startTracing({ serviceName: "warden-test", endpoint: live.url });
    s = await startSubagentWarden([READER]);
    await s.w.nats.home.addIdentity({ kind: "auditor", name: "auditor" });
    dir = mkdtempSync(join(tmpdir(), "warden-otlp-export-"));
    since = new Date(Date.now() - 1_000).toISOString();
    bot = await s.w.agent("support-bot", { timeoutMs: 20_000 });

    ({ search, agentSpanId } = await trace.getTracer("test-agent").startActiveSpan("agent turn", async (span) => {
      const r = await bot.call("kb.search", { query: "refund" }, { mode: "llm" });
      span.end();
      return { search: r, agentSpanId: span.spanContext().spanId };
    }));
    expect(search).toMatchObject({ ok: true, status: "succeeded" });

    s.model.script("m-reader", [{ toolCalls: [{ name: "kb__search", arguments: { query: "refund" } }] }, { content: "Found the refund article." }]);
    delegated = await bot.call("agent.reader", { task: "What is the refund policy?" }, { mode: "plan" });
    expect(delegated).toMatchObject({ ok: true, status: "succeeded" });
    const children = await childRequests(s.w.bus, "agent-reader", delegated.callId);
    expect(children).toHaveLength(1);
    childCallId = children[0]!.callId;

    held = await bot.call("customer.message", { customerId: "C-otlp", text: "Your refund is on its way" }, { mode: "plan" });
    expect(held.status).toBe("awaiting_approval");
    await eventually(async () => expect((await callEvents(s.w.bus, held.callId)).map((e) => e.type)).toContain("ApprovalRequested"));

    // the live trace of each call is complete before the export is compared with it
    await eventually(async () => {
      await tracing.flush();
      expect(ofCall(live.spans, search.callId).has("tool kb.search")).toBe(true);
      expect(ofCall(live.spans, delegated.callId).has("tool agent.reader")).toBe(true);
      expect(ofCall(live.spans, childCallId).has("tool kb.search")).toBe(true);
      expect(ofCall(live.spans, held.callId).has("stage approver-request")).toBe(true);
    });
    ran = await asAuditor("--endpoint", exported.url, "--since", since);
  }, 100_000);

  afterAll(async () => {
    await s?.stop();
    await tracing?.stop();
    await live?.close();
    await exported?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("posts OTLP JSON to the receiver and says what it exported", () => {
    expect(ran.code, ran.err).toBe(0);
    // 4 spans of each finished call (the child's too), 3 of the one waiting; the child shares its parent's trace
    expect(ran.out.trimEnd()).toBe(`exported 15 spans of 4 calls (3 traces) to ${exported.url}/v1/traces`);
    expect(exported.spans.filter((sp) => sp.attributes["warden.rebuilt"] === true)).toHaveLength(15);
    expect(exported.contentTypes.every((t) => t === "application/json")).toBe(true);
  });

  it("rebuilds a call's trace with the live ids and parent links: agent span → the call's span → registry → policy → executor stage → the tool's run", () => {
    const names = ["stage registry-validate", "stage policy-check", "stage executor-allowed-kb", "tool kb.search"];
    const rebuilt = ofCall(exported.spans, search.callId);
    const was = ofCall(live.spans, search.callId);
    expect([...rebuilt.keys()]).toEqual(names);
    const [registry, policy, executor, tool] = names.map((n) => rebuilt.get(n)!) as [ReceivedSpan, ReceivedSpan, ReceivedSpan, ReceivedSpan];
    // the request names the call's own span (the SDK's, live only: no event stands for it), under the agent's
    const callSpan = was.get("execute_tool kb.search")!;
    expect(callSpan.parentSpanId).toBe(agentSpanId);
    expect(registry.parentSpanId).toBe(callSpan.spanId);
    expect(policy.parentSpanId).toBe(registry.spanId);
    expect(executor.parentSpanId).toBe(policy.spanId);
    expect(tool.parentSpanId).toBe(executor.spanId);
    // the stages' spans are the live ones: their ids are in the events the stages wrote
    for (const name of names.slice(0, 3)) {
      expect({ name, traceId: rebuilt.get(name)!.traceId, spanId: rebuilt.get(name)!.spanId, parentSpanId: rebuilt.get(name)!.parentSpanId }).toEqual({
        name,
        traceId: was.get(name)!.traceId,
        spanId: was.get(name)!.spanId,
        parentSpanId: was.get(name)!.parentSpanId,
      });
    }
    expect(tool.traceId).toBe(was.get("tool kb.search")!.traceId);

    const call = { "warden.call_id": search.callId, "warden.tool": "kb.search", "warden.domain": "kb", "warden.principal": "support-bot", "warden.mode": "llm", "warden.rebuilt": true };
    expect(registry).toMatchObject({ service: "warden-registry", attributes: { ...call, "warden.stage": "registry-validate", "warden.event_type": "ToolCallRequested" } });
    expect(policy).toMatchObject({ service: "warden-policy", attributes: { ...call, "warden.event_type": "ToolArgsValidated", "warden.grade": "read", "warden.decision": "allow" } });
    expect(policy.attributes["warden.rule_ids"]).toEqual(was.get("stage policy-check")!.attributes["warden.rule_ids"]);
    expect(executor.attributes).toMatchObject({ ...call, "warden.event_type": "ToolPolicyChecked", "warden.decision": "allow" });
    expect(tool.attributes).toMatchObject({ ...call, "warden.ok": true, "warden.attempt": 1, "warden.executor_id": was.get("tool kb.search")!.attributes["warden.executor_id"] });
    // the run lies within its stage, as it did live
    expect(tool.startMs).toBeGreaterThanOrEqual(executor.startMs);
    expect(tool.endMs).toBeLessThanOrEqual(executor.endMs);
  });

  it("nests a subagent's child call under the delegating call's run, in one trace, as live", () => {
    const parent = ofCall(exported.spans, delegated.callId);
    const child = ofCall(exported.spans, childCallId);
    const run = parent.get("tool agent.reader")!;
    // the child's request names its own call span, a child of the run's: so even the run keeps its live id
    expect(run.spanId).toBe(ofCall(live.spans, delegated.callId).get("tool agent.reader")!.spanId);
    expect(run.parentSpanId).toBe(parent.get("stage executor-allowed-agent")!.spanId);
    const childCall = ofCall(live.spans, childCallId).get("execute_tool kb.search")!;
    expect(childCall.parentSpanId).toBe(run.spanId);
    expect(child.get("stage registry-validate")!.parentSpanId).toBe(childCall.spanId);
    expect(child.get("tool kb.search")!.parentSpanId).toBe(child.get("stage executor-allowed-kb")!.spanId);
    expect(new Set([...parent.values(), ...child.values()].map((sp) => sp.traceId))).toEqual(new Set([run.traceId]));
    expect(run).toMatchObject({ service: "warden-subagent", attributes: { "warden.ok": true } });
  });

  it("includes the spans a call waiting for a person has so far: registry, policy and the approver's stage", () => {
    const waiting = ofCall(exported.spans, held.callId);
    expect([...waiting.keys()]).toEqual(["stage registry-validate", "stage policy-check", "stage approver-request"]);
    const approver = waiting.get("stage approver-request")!;
    expect(approver.spanId).toBe(ofCall(live.spans, held.callId).get("stage approver-request")!.spanId);
    expect(approver.parentSpanId).toBe(waiting.get("stage policy-check")!.spanId);
    expect(waiting.get("stage policy-check")!.attributes).toMatchObject({ "warden.grade": "send", "warden.decision": "require_approval" });
  });

  it("writes the same spans to a file as OTLP JSON, one request a line, with --out", async () => {
    const file = join(dir, "spans.otlp.jsonl");
    const r = await asAuditor("--out", file, "--since", since, "--json");
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ ok: true, file, calls: 4, traces: 3, requests: 1, ancestors: 0, invalid: 0 });
    const lines = readFileSync(file, "utf8").trimEnd().split("\n");
    const inFile = lines.flatMap((l) => (JSON.parse(l) as { resourceSpans: { scopeSpans: { spans: { spanId: string }[] }[] }[] }).resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans.map((sp) => sp.spanId))));
    const posted = exported.spans.filter((sp) => sp.attributes["warden.rebuilt"] === true).map((sp) => sp.spanId);
    expect(inFile.sort()).toEqual(posted.sort());
  });

  it("refuses an endpoint that is not an http(s) URL in one line naming the option, before it reads anything", async () => {
    const r = await asAuditor("--endpoint", "collector:4318");
    expect(r.code).toBe(1);
    expect(r.err.trimEnd().split("\n")).toEqual([expect.stringMatching(/^warden: --endpoint "collector:4318" is not an http\(s\) URL/)]);
  });

  it("exits non-zero with the reason when the receiver cannot be reached", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const r = await asAuditor("--endpoint", `http://127.0.0.1:${port}`, "--since", since);
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(new RegExp(`could not export the spans to http://127\\.0\\.0\\.1:${port}/v1/traces: connect ECONNREFUSED`));
  });
});
