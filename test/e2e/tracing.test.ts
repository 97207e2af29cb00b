import { trace } from "@opentelemetry/api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spanContextOfTraceparent } from "@warden/contracts/events";
import { consumerName } from "@warden/contracts/subjects";
import { DURABLE_REGISTRY } from "@warden/contracts/permissions";
import { APPROVER_STAGE } from "@warden/approver";
import { POLICY_STAGE } from "@warden/policy";
import { createAgentClient } from "@warden/sdk";
import { startTracing, type Tracing } from "@warden/service-kit";
import { callEvents, eventually } from "@warden/testing";
import { cardIn } from "../support/approval-cards.js";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "../support/otlp-receiver.js";
import { useTestWarden } from "../support/use-test-warden.js";

describe("tracing: one call is one trace, from the agent's span through every stage to the tool's run", () => {
  let receiver: OtlpReceiver;
  let tracing: Tracing;
  // before the Warden starts: its services run in this process and share this one provider, as in `warden up`
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    tracing = startTracing({ serviceName: "warden-test", endpoint: receiver.url });
  });
  afterAll(async () => {
    await tracing?.stop();
    await receiver?.close();
  });
  const t = useTestWarden({ demo: true }, async (w) => ({ bot: createAgentClient({ bus: await w.agentBus("support-bot"), principal: "support-bot" }) }));

  it("exports the agent's span, the registry, policy and executor stages and the tool's run, each the parent of the next", async () => {
    const agentTracer = trace.getTracer("test-agent");
    const { result, agentSpanId, traceId } = await agentTracer.startActiveSpan("agent turn", async (span) => {
      const r = await t.bot.call("kb.search", { query: "refund" }, { mode: "llm" });
      span.end();
      return { result: r, agentSpanId: span.spanContext().spanId, traceId: span.spanContext().traceId };
    });
    expect(result).toMatchObject({ ok: true, status: "succeeded" });
    const callId = result.callId;

    const names = ["execute_tool kb.search", `stage ${DURABLE_REGISTRY}`, `stage ${POLICY_STAGE}`, `stage ${consumerName("executor-allowed", "kb")}`, "tool kb.search"];
    const ofCall = () => receiver.spans.filter((s) => s.attributes["warden.call_id"] === callId);
    const byName = await eventually(async () => {
      await tracing.flush();
      const found = new Map(ofCall().map((s) => [s.name, s]));
      for (const name of names) expect(found.has(name), name).toBe(true);
      expect(receiver.spans.some((s) => s.spanId === agentSpanId)).toBe(true);
      return found;
    });
    expect(receiver.contentTypes[0]).toBe("application/json");

    const agent = receiver.spans.find((s) => s.spanId === agentSpanId)!;
    const [callSpan, registry, policy, executor, tool] = names.map((n) => byName.get(n)!) as [ReceivedSpan, ReceivedSpan, ReceivedSpan, ReceivedSpan, ReceivedSpan];
    // the parent links: agent → the call (the SDK) → registry → policy → executor stage → the tool's run, one trace
    expect(agent.parentSpanId).toBeUndefined();
    expect(callSpan.parentSpanId).toBe(agent.spanId);
    expect(registry.parentSpanId).toBe(callSpan.spanId);
    expect(policy.parentSpanId).toBe(registry.spanId);
    expect(executor.parentSpanId).toBe(policy.spanId);
    expect(tool.parentSpanId).toBe(executor.spanId);
    for (const s of [agent, callSpan, registry, policy, executor, tool]) expect(s.traceId).toBe(traceId);
    // the call's span speaks OpenTelemetry's GenAI and messaging conventions
    expect(callSpan.attributes).toMatchObject({ "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "kb.search", "gen_ai.tool.call.id": callId, "messaging.system": "nats", "warden.status": "succeeded" });
    expect(registry.service).toBe("warden-test");

    const call = { "warden.call_id": callId, "warden.tool": "kb.search", "warden.domain": "kb" };
    expect(registry.attributes).toMatchObject({ ...call, "warden.stage": DURABLE_REGISTRY, "warden.event_type": "ToolCallRequested", "warden.outcome": "ack", "warden.principal": "support-bot", "warden.mode": "llm" });
    // the policy stage reads a validated call (its grade) and says what it decided
    expect(policy.attributes).toMatchObject({ ...call, "warden.stage": POLICY_STAGE, "warden.event_type": "ToolArgsValidated", "warden.grade": "read", "warden.decision": "allow", "warden.outcome": "ack" });
    expect(policy.attributes["warden.rule_ids"]).toEqual(expect.arrayContaining([expect.any(String)]));
    expect(executor.attributes).toMatchObject({ ...call, "warden.event_type": "ToolPolicyChecked", "warden.grade": "read", "warden.decision": "allow", "warden.outcome": "ack" });
    expect(executor.attributes["warden.rule_ids"]).toEqual(policy.attributes["warden.rule_ids"]);
    expect(tool.attributes).toMatchObject({ ...call, "warden.ok": true, "warden.attempt": 1 });

    // the context travels in the events: each names the span it was written in
    const events = await callEvents(t.w.bus, callId);
    const spanOf = (type: string) => spanContextOfTraceparent(events.find((e) => e.type === type)?.traceparent);
    expect(spanOf("ToolCallRequested")).toMatchObject({ traceId, spanId: callSpan.spanId });
    expect(spanOf("ToolArgsValidated")).toMatchObject({ traceId, spanId: registry.spanId });
    expect(spanOf("ToolPolicyChecked")).toMatchObject({ traceId, spanId: policy.spanId });
    expect(spanOf("ToolCallStarted")).toMatchObject({ traceId, spanId: executor.spanId });
    expect(spanOf("ToolCallFinished")).toMatchObject({ traceId, spanId: executor.spanId });
  });

  it("keeps a call that waits for a person in one trace: policy → approver stage → the person's wait → the granted executor stage → the tool's run", async () => {
    const { pending, agentSpanId } = await trace.getTracer("test-agent").startActiveSpan("agent plan step", async (span) => {
      const r = await t.bot.call("customer.message", { customerId: "C-trace", text: "Your refund is on its way" }, { mode: "plan" });
      span.end();
      return { pending: r, agentSpanId: span.spanContext().spanId };
    });
    expect(pending).toMatchObject({ status: "awaiting_approval" });
    const alice = await t.w.approver("alice");
    const item = await cardIn(alice, (p) => p.approvalId === pending.approvalId);
    expect(await alice.approve(item.approvalId, item.argsHash)).toMatchObject({ ok: true, decision: "grant" });
    const names = [`stage ${POLICY_STAGE}`, `stage ${APPROVER_STAGE}`, "approval wait", `stage ${consumerName("executor-granted", "customer")}`, "tool customer.message"];
    const byName = await eventually(async () => {
      await tracing.flush();
      const found = new Map(receiver.spans.filter((s) => s.attributes["warden.call_id"] === pending.callId).map((s) => [s.name, s]));
      for (const name of names) expect(found.has(name), name).toBe(true);
      return found;
    });
    const [policy, approver, wait, executor, tool] = names.map((n) => byName.get(n)!) as [ReceivedSpan, ReceivedSpan, ReceivedSpan, ReceivedSpan, ReceivedSpan];
    expect(byName.get("execute_tool customer.message")?.parentSpanId).toBe(agentSpanId);
    expect(approver.parentSpanId).toBe(policy.spanId);
    // the person's wait: from the request to alice's grant, and the granted run under it
    expect(wait.parentSpanId).toBe(approver.spanId);
    expect(wait.attributes).toMatchObject({ "warden.approval_id": pending.approvalId, "warden.approval.outcome": "granted", "warden.approval.decided_by": "alice" });
    expect(wait.endMs).toBeGreaterThan(wait.startMs);
    expect(executor.parentSpanId).toBe(wait.spanId);
    expect(tool.parentSpanId).toBe(executor.spanId);
    expect(new Set([policy, approver, wait, executor, tool].map((s) => s.traceId)).size).toBe(1);
    expect(policy.attributes).toMatchObject({ "warden.grade": "send", "warden.decision": "require_approval" });
    expect(executor.attributes).toMatchObject({ "warden.event_type": "ApprovalGranted", "warden.outcome": "ack" });
    expect(tool.attributes).toMatchObject({ "warden.ok": true });
  });

  it("starts a call's trace at the call's own span when the agent has no span of its own", async () => {
    const r = await t.bot.call("kb.search", { query: "password" }, { mode: "llm" });
    expect(r).toMatchObject({ ok: true });
    const [callSpan, registry] = await eventually(async () => {
      await tracing.flush();
      const of = (name: string) => receiver.spans.find((s) => s.attributes["warden.call_id"] === r.callId && s.name === name);
      const found = [of("execute_tool kb.search"), of(`stage ${DURABLE_REGISTRY}`)];
      for (const f of found) expect(f).toBeDefined();
      return found as [ReceivedSpan, ReceivedSpan];
    });
    expect(callSpan.parentSpanId).toBeUndefined();
    expect(registry.parentSpanId).toBe(callSpan.spanId);
    const events = await callEvents(t.w.bus, r.callId);
    expect(spanContextOfTraceparent(events.find((e) => e.type === "ToolCallRequested")?.traceparent)).toMatchObject({ traceId: callSpan.traceId, spanId: callSpan.spanId });
    expect(spanContextOfTraceparent(events.find((e) => e.type === "ToolCallFinished")?.traceparent)?.traceId).toBe(registry.traceId);
  });
});
