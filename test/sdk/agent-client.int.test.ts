import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { headers } from "@nats-io/transport-node";
import { appendEvent, decodeJson, readEvent, silentLogger } from "@warden/bus";
import { eventHash, newId, ToolCallRequestedSchema, type ToolCallRequested, type WardenEvent } from "@warden/contracts/events";
import { MAX_REQUEST_BYTES, stageFilterSubject } from "@warden/contracts/subjects";
import { type ToolDescriptorInput } from "@warden/contracts/descriptor";
import { argsHash } from "@warden/contracts/json";
import { startRegistryService } from "@warden/registry";
import { eventually, pendingSendRequest, useTestNats } from "@warden/testing";
import { createAgentClient, createRegistryClient } from "@warden/sdk";

const HASH = argsHash({});

const sideEffects = "Use when the change is wanted; it changes what others see later.";

function tool(name: string, grade: "read" | "write" | "send" = "read", version = "1.0.0"): ToolDescriptorInput {
  return {
    name,
    version,
    title: name,
    description: grade === "read" ? "Use when the caller needs this information." : sideEffects,
    // any object: the registry validates every call, and these tests are about what the client makes of the outcome
    inputSchema: { type: "object" },
    grade,
    idempotent: grade === "read",
  };
}

/** The tools the calls below name, so the real registry validates them instead of rejecting them. */
const TOOLS: ToolDescriptorInput[][] = [
  [tool("kb.search"), tool("kb.search", "read", "1.2.3")],
  [tool("customer.message", "send")],
  [tool("demo.fail"), tool("demo.big")],
  [tool("ticket.submit", "write"), tool("ticket.fill", "write")],
];

/**
 * The real registry validates each request and answers the client's reads of its own calls
 * (`warden.calls.<principal>.<domain>.<callId>`); the test plays the later stages: for each request
 * it appends what `respond` returns, in order.
 */
type Responder = (req: ToolCallRequested) => Promise<void> | void;

function answer(req: ToolCallRequested, type: WardenEvent["type"], data: unknown): WardenEvent {
  const { v, callId, domain, tool, principal, mode, correlationId } = req;
  const cause = { causationId: req.eventId, causeHash: eventHash(req) };
  return { v, callId, domain, tool, principal, mode, correlationId, eventId: newId(), ts: new Date().toISOString(), ...cause, type, data } as WardenEvent;
}

function approvalRequested(req: ToolCallRequested, approvalId: string): WardenEvent {
  return answer(req, "ApprovalRequested", pendingSendRequest(approvalId, req.data.args, HASH));
}

function finished(req: ToolCallRequested, data: object): WardenEvent {
  return answer(req, "ToolCallFinished", { truncated: false, outputBytes: 10, artifacts: [], durationMs: 1, executorId: "test", attempt: 1, ...data });
}

describe("createAgentClient().call against a real nats-server", () => {
  let respond: Responder;
  const requests: ToolCallRequested[] = [];

  // `bus` (admin) looks at the stream, never calls; `pipeline` (admin) plays the stages after the registry
  const t = useTestNats(async (nats, bus) => {
    const pipeline = await nats.bus("pipeline");
    const registry = await startRegistryService({ bus: await nats.connectAs({ kind: "service", name: "registry", role: "registry" }), log: silentLogger() });
    for (const tools of TOOLS) {
      const r = await createRegistryClient(bus).register(tools);
      if (!r.ok) throw new Error(r.error.message);
    }
    pipeline.nc.subscribe(stageFilterSubject("ToolCallRequested"), {
      callback: (_err, msg) => {
        const decoded = decodeJson(msg.data);
        const req = decoded.ok ? ToolCallRequestedSchema.safeParse(decoded.value) : undefined;
        if (!req?.success) return;
        requests.push(req.data);
        void respond(req.data);
      },
    });
    await pipeline.nc.flush();
    // the agent's own connection (clients account), as `support-bot`
    const agentBus = await nats.connectAs({ kind: "agent", name: "support-bot" });
    const client = createAgentClient({ bus: agentBus, principal: "support-bot", mode: "llm", runId: "run-int" });
    return { pipeline, registry, client };
  });
  afterAll(async () => {
    await t.client.close();
    await t.registry.stop();
  });
  beforeEach(() => {
    respond = () => {};
    requests.length = 0;
  });

  it("returns succeeded with the data when the call finishes well", async () => {
    respond = async (req) => {
      await appendEvent(t.pipeline, answer(req, "ToolCallStarted", {
        executorId: "test",
        version: "1.0.0",
        descriptorHash: HASH,
        argsHash: HASH,
        authorizedBy: { type: "ToolPolicyChecked", eventId: req.eventId },
        deadline: new Date(Date.now() + 5_000).toISOString(),
      }));
      await appendEvent(t.pipeline, finished(req, { ok: true, output: { hits: ["refunds"] } }));
    };
    const result = await t.client.call("kb.search", { query: "refund" });
    expect(result).toEqual({ callId: result.callId, ok: true, status: "succeeded", data: { hits: ["refunds"] } });
    const stored = await readEvent(t.bus, "kb", result.callId, "ToolCallRequested", "support-bot");
    expect(stored).toMatchObject({ tool: "kb.search", mode: "llm", correlationId: "run-int", data: { args: { query: "refund" }, scope: null, flags: {} } });
  });

  it("ignores a result seen on the wire that the stream does not hold (forged or refused) and takes the stored one", async () => {
    respond = async (req) => {
      const forged = finished(req, { ok: true, output: { forged: true } });
      // the stream refuses this publish (wrong expected stream) but core subscribers still see it
      const h = headers();
      h.set("Nats-Expected-Stream", "NOT_WARDEN");
      t.pipeline.nc.publish(`warden.call.${req.domain}.${req.callId}.ToolCallFinished`, JSON.stringify(forged), { headers: h });
      await t.pipeline.nc.flush();
      await new Promise((r) => setTimeout(r, 50));
      await appendEvent(t.pipeline, finished(req, { ok: true, output: { real: true } }));
    };
    const result = await t.client.call("kb.search", { query: "refund" });
    expect(result).toMatchObject({ ok: true, data: { real: true } });
  });

  it("passes call options into the request and publishes a wire name under its domain", async () => {
    respond = (req) => void appendEvent(t.pipeline, finished(req, { ok: true, output: null }));
    // a person's own connection may ask as that person, in mode human
    const alice = createAgentClient({ bus: await t.nats.connectAs({ kind: "human", name: "alice" }), principal: "alice", runId: "run-alice" });
    const result = await alice.call("kb__search", { query: "x" }, {
      mode: "human",
      principal: "alice",
      scope: "ticket_page",
      flags: { kbAdmin: true },
      runId: "run-other",
      version: "1.2.3",
      parentCallId: "parent-1",
    });
    await alice.close();
    expect(result.status).toBe("succeeded");
    expect(requests[0]).toMatchObject({
      callId: result.callId,
      domain: "kb",
      tool: "kb__search",
      principal: "alice",
      mode: "human",
      correlationId: "run-other",
      parentCallId: "parent-1",
      data: { scope: "ticket_page", flags: { kbAdmin: true }, version: "1.2.3" },
    });
  });

  it("puts the principal option on the request subject, where the server refuses one the credentials do not name", async () => {
    respond = (req) => void appendEvent(t.pipeline, finished(req, { ok: true, output: null }));
    const result = await t.client.call("kb.search", { query: "x" }, { principal: "alice" });
    expect(result).toMatchObject({ ok: false, status: "rejected", error: { code: "FORBIDDEN" } });
    expect(await readEvent(t.bus, "kb", result.callId, "ToolCallRequested")).toBeUndefined();
    expect(requests).toHaveLength(0);
  });

  it("returns the registry's rejection of a hallucinated tool published under the unresolved domain", async () => {
    // nothing plays a stage here: the real registry finds no such tool and rejects the call
    const result = await t.client.call("searchTheWeb", {});
    expect(result).toMatchObject({ ok: false, status: "rejected", error: { code: "UNKNOWN_TOOL" } });
    expect(result.error?.message).toContain("searchTheWeb");
    expect(requests[0]?.domain).toBe("unresolved");
  });

  it("returns a failed result with the tool's error and keeps artifacts of a truncated output", async () => {
    const artifact = { id: "x.output.json", sha256: "c".repeat(64), bytes: 2_000_000, contentType: "application/json" };
    respond = (req) =>
      void appendEvent(t.pipeline, finished(req, req.tool === "demo.fail"
        ? { ok: false, error: { code: "HANDLER_ERROR", message: "boom", retryable: true } }
        : { ok: true, output: ["first"], truncated: true, artifacts: [artifact] }));
    expect(await t.client.call("demo.fail", {})).toMatchObject({ ok: false, status: "failed", error: { code: "HANDLER_ERROR", message: "boom" } });
    expect(await t.client.call("demo.big", {})).toMatchObject({ ok: true, status: "succeeded", data: ["first"], truncated: true, artifacts: [artifact] });
  });

  it("returns at ApprovalRequested with requiresConfirm when not waiting", async () => {
    respond = (req) => void appendEvent(t.pipeline, approvalRequested(req, "ap-nowait"));
    const result = await t.client.call("customer.message", { customerId: "c1", text: "hi" }, { mode: "plan" });
    expect(result).toMatchObject({
      ok: false,
      status: "awaiting_approval",
      requiresConfirm: true,
      approvalId: "ap-nowait",
      error: { code: "CONFIRMATION_REQUIRED" },
    });
  });

  it("waits through the approval to a denial whose message names the approver and reason", async () => {
    let requested: ToolCallRequested | undefined;
    respond = async (req) => {
      await appendEvent(t.pipeline, approvalRequested(req, "ap-wait"));
      requested = req;
    };
    const pending = t.client.call("customer.message", { customerId: "c1", text: "hi" }, { mode: "plan", wait: true });
    const req = await eventually(() => {
      if (!requested) throw new Error("no approval requested yet");
      return requested;
    });
    await appendEvent(t.pipeline, answer(req, "ApprovalDenied", { approvalId: "ap-wait", approver: "alice", reason: "wrong customer" }));
    const result = await pending;
    expect(result).toMatchObject({ ok: false, status: "denied", approvalId: "ap-wait", error: { code: "APPROVAL_DENIED" } });
    expect(result.error?.message).toMatch(/alice/);
    expect(result.error?.message).toMatch(/wrong customer/);
  });

  it("maps an expired approval and an unknown outcome", async () => {
    respond = (req) =>
      void appendEvent(t.pipeline, req.tool === "ticket.submit"
        ? answer(req, "ApprovalExpired", { approvalId: "ap-exp", expiresAt: new Date().toISOString() })
        : answer(req, "ToolCallOutcomeUnknown", { reason: "executor stopped mid-run", startedEventId: "s1", executorId: "ex1" }));
    expect(await t.client.call("ticket.submit", {}, { wait: true })).toMatchObject({ status: "expired", error: { code: "APPROVAL_EXPIRED" } });
    expect(await t.client.call("ticket.fill", {})).toMatchObject({ status: "outcome_unknown", error: { code: "OUTCOME_UNKNOWN" } });
  });

  it("comes back pending with WAIT_TIMEOUT when nothing answers in time", async () => {
    const result = await t.client.call("kb.search", { query: "slow" }, { timeoutMs: 200 });
    expect(result).toMatchObject({ ok: false, status: "pending", error: { code: "WAIT_TIMEOUT", retryable: true } });
    expect(await readEvent(t.bus, "kb", result.callId, "ToolCallRequested")).toBeDefined();
  });

  it("tells onAccepted the call id once the server stored the request, and never for a request it did not store", async () => {
    const accepted: string[] = [];
    const onAccepted = (id: string) => accepted.push(id);
    const stored = await t.client.call("kb.search", { query: "slow" }, { timeoutMs: 200, onAccepted });
    // the wait ran out, but the request is stored and will end: the caller knows its id
    expect(stored.status).toBe("pending");
    expect(accepted).toEqual([stored.callId]);
    const oversize = await t.client.call("ticket.submit", { body: "x".repeat(MAX_REQUEST_BYTES) }, { onAccepted });
    const forbidden = await t.client.call("kb.search", {}, { principal: "someone-else", timeoutMs: 500, onAccepted });
    expect([oversize.error?.code, forbidden.error?.code]).toEqual(["PAYLOAD_TOO_LARGE", "FORBIDDEN"]);
    expect(accepted).toEqual([stored.callId]);
  });

  it("keeps the approval id of a waiting call whose wait runs out", async () => {
    respond = (req) => void appendEvent(t.pipeline, approvalRequested(req, "ap-timeout"));
    const result = await t.client.call("customer.message", { customerId: "c", text: "t" }, { wait: true, timeoutMs: 300 });
    expect(result).toMatchObject({ status: "pending", approvalId: "ap-timeout", requiresConfirm: true, error: { code: "WAIT_TIMEOUT" } });
  });

  it("refuses an unsafe principal and a wildcard tool name without publishing anything", async () => {
    const badPrincipal = await t.client.call("kb.search", {}, { principal: "bob.smith" });
    const badTool = await t.client.call("kb.>", {});
    for (const r of [badPrincipal, badTool]) {
      expect(r).toMatchObject({ ok: false, status: "rejected", error: { code: "INVALID_REQUEST" } });
    }
    expect(await readEvent(t.bus, "kb", badPrincipal.callId, "ToolCallRequested")).toBeUndefined();
    expect(requests).toHaveLength(0);
  });

  it("answers args no JSON can carry (circular, absurdly deep) with INVALID_REQUEST instead of throwing", async () => {
    const circular: Record<string, unknown> = { a: 1 };
    circular["self"] = circular;
    const r1 = await t.client.call("kb.search", circular);
    expect(r1).toMatchObject({ ok: false, error: { code: "INVALID_REQUEST" } });
    let deep: unknown = "x";
    for (let i = 0; i < 20_000; i++) deep = [deep];
    const r2 = await t.client.call("kb.search", { deep });
    expect(r2.ok).toBe(false);
    expect(requests).toHaveLength(0);
  });

  it("refuses an oversize request with PAYLOAD_TOO_LARGE without publishing it", async () => {
    const result = await t.client.call("ticket.submit", { title: "t", body: "x".repeat(MAX_REQUEST_BYTES), customerId: "c" });
    expect(result).toMatchObject({ ok: false, status: "rejected", error: { code: "PAYLOAD_TOO_LARGE" } });
    expect(await readEvent(t.bus, "ticket", result.callId, "ToolCallRequested")).toBeUndefined();
  });

  it("answers a tool view from the registry, compiled for the client's principal and mode", async () => {
    const view = await t.client.toolView({ format: "openai" });
    if (!view.ok) throw new Error(view.error.message);
    expect(view.value.view.query).toMatchObject({ principal: "support-bot", mode: "llm" });
    const names = (view.value.formatted as { function: { name: string } }[]).map((t) => t.function.name);
    expect(names).toContain("kb__search");
    // a model never sees a send tool
    expect(names).not.toContain("customer__message");
  });
});

describe("createAgentClient() with no registry running", () => {
  const t = useTestNats(async (nats) => ({
    client: createAgentClient({ bus: await nats.connectAs({ kind: "agent", name: "support-bot" }), principal: "support-bot" }),
  }));
  afterAll(async () => t.client.close());

  it("answers a tool view request with UNAVAILABLE", async () => {
    const view = await t.client.toolView({ format: "openai" });
    expect(view).toMatchObject({ ok: false, error: { code: "UNAVAILABLE" } });
  });
});
