import type { Bus } from "@warden/bus";
import {
  activeTraceparent,
  newId,
  type ToolResult,
  type WardenEvent,
  idempotentCallId,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  undoCallIdOf,
} from "@warden/contracts/events";
import { ANY_DOMAIN, isSafeToken } from "@warden/contracts/subjects";
import { fail, wardenError, type Outcome, type WardenError } from "@warden/contracts/errors";
import {
  ToolViewRequestSchema,
  type CallMode,
  type Intent,
  type ToolIntent,
  type ToolViewRequestInput,
} from "@warden/contracts/descriptor";
import { awaitOwnCall, publishAndAwait, readOwnCall, type InFlight } from "./call-watch.js";
import { cancelCall, type CancelOutcome } from "./cancel-call.js";
import { inCallSpan } from "./call-span.js";
import { buildCallRequest } from "./domain/call-request.js";
import { domainOfTool } from "./domain/tool-domain.js";
import { createRegistryClient } from "./registry-client.js";
import type { ToolViewResult } from "./tool-view-result.js";
import { watchToolViewOn, type ToolViewWatch, type ToolViewWatchOptions } from "./tool-view-watch.js";

/** How long {@link AgentClient.call} waits for a call's outcome unless told otherwise: 30 s. */
export const DEFAULT_CALL_TIMEOUT_MS = 30_000;

/** Options of {@link createAgentClient}. */
export interface AgentClientOptions {
  /**
   * A connection made with the principal's own credentials (`NATS_CREDS`, e.g.
   * `.warden/identities/support-bot/nats.creds`): the server lets it ask for calls only as that principal.
   */
  readonly bus: Bus;
  /**
   * Who calls; the last token of every request subject. Must be the identity the bus's
   * credentials name, else every call comes back `rejected` with `FORBIDDEN`.
   */
  readonly principal: string;
  /**
   * Who decided to make the calls: `human` (a person pressed a button), `plan` (a fixed flow) or
   * `llm` (a model chose). Only a principal the policy document names as `human` may use `human`.
   * @default "llm" (the most restricted)
   */
  readonly mode?: CallMode;
  /**
   * The run this client's calls belong to; budgets (`maxCallsPerRun`) count per run.
   * @default a new id per client
   */
  readonly runId?: string;
  /**
   * How long a call waits for its outcome before it comes back `pending` (`WAIT_TIMEOUT`).
   * @default 30_000 ({@link DEFAULT_CALL_TIMEOUT_MS})
   */
  readonly timeoutMs?: number;
}

/** Per-call options of {@link AgentClient.call}; each one left out takes the client's value. */
export interface CallOptions {
  /** @default the client's mode */
  readonly mode?: CallMode;
  /**
   * Ask as another principal; the server refuses it (`FORBIDDEN`) unless the bus's identity may
   * ask for that principal (the subagent service for its subagents).
   * @default the client's principal
   */
  readonly principal?: string;
  /**
   * Where the caller is (a page, a screen); matched against a tool's `scopes`.
   * @default null (no scope: only tools without scopes apply)
   */
  readonly scope?: string | null;
  /**
   * Feature flags for this call: one may turn off a flag the policy document grants the
   * principal, never turn one on.
   * @default {}
   */
  readonly flags?: Readonly<Record<string, boolean>>;
  /** @default the client's runId */
  readonly runId?: string;
  /**
   * Pin a tool version.
   * @default the newest enabled version
   */
  readonly version?: string;
  /** The call that delegated this one (a subagent's child calls); policy checks attenuation along the chain. */
  readonly parentCallId?: string;
  /**
   * Why this call is made: `goal` (at most 300 characters), `rationale` (2000), `expectedEffect`
   * (1000). The approval card, `warden trace` and `warden audit` show it; over a bound the call is
   * refused INVALID_REQUEST before anything is sent.
   */
  readonly intent?: Intent;
  /**
   * Wait through an approval to the call's end instead of returning `awaiting_approval` at
   * ApprovalRequested.
   * @default false
   */
  readonly wait?: boolean;
  /** @default the client's timeoutMs */
  readonly timeoutMs?: number;
  /**
   * Makes the call at most once however often it is asked for (a retry after a crash, a framework
   * that re-runs a step): the call id is derived from the principal and this key, so asking again
   * with the same key, tool and args follows the first call and returns its result instead of
   * making a second request; the same key with another tool or args comes back `rejected` with
   * `DUPLICATE_CALL_ID`. Any text up to 256 characters, e.g. `"refund-4711/step-3"`.
   * @default none (each call gets a new id)
   */
  readonly idempotencyKey?: string;
  /**
   * Told the call id as soon as the server has stored the request (its publish ack), before any
   * stage answers: from then on the call will end, whatever happens to this process, so a caller
   * that may stop can keep the id and ask {@link AgentClient.result} later. Not told when nothing
   * was stored (`UNAVAILABLE` before the ack, `FORBIDDEN`, `DUPLICATE_CALL_ID`, a bad request).
   */
  readonly onAccepted?: (callId: string) => void;
}

export type { ToolViewResult } from "./tool-view-result.js";

/** Options of {@link AgentClient.awaitCall}. */
export interface AwaitCallOptions {
  /**
   * Wait through an approval to the call's end; false returns at once with `awaiting_approval`
   * while it waits for a person.
   * @default true
   */
  readonly wait?: boolean;
  /** @default the client's timeoutMs */
  readonly timeoutMs?: number;
}

/** Options of {@link AgentClient.result}. */
export interface ResultOptions {
  /**
   * Wait through an approval to the call's end; false returns at once with `awaiting_approval`
   * while it waits for a person.
   * @default true
   */
  readonly wait?: boolean;
  /** @default the client's timeoutMs */
  readonly timeoutMs?: number;
}

/**
 * A view request. `principal` and `mode` default to the client's; `format` defaults to
 * `"openai"` (also `"openai-responses"`, `"anthropic"`, `"mcp"`, `"table"`), `explain` to false (true lists every
 * hidden tool with its reason), `flags` to `{}` and `scope` to null.
 */
export type AgentToolViewQuery = Partial<ToolViewRequestInput>;

/** What {@link createAgentClient} returns: an agent's one way to see and call tools. */
export interface AgentClient {
  readonly principal: string;
  readonly mode: CallMode;
  readonly runId: string;
  /**
   * Asks for a tool call and waits for its answer; always resolves to a {@link ToolResult}, never
   * throws. `status` says where the call ended: `succeeded` (`data` holds the output),
   * `rejected` (`INVALID_ARGS`, `UNKNOWN_TOOL`, `TOOL_DISABLED`, `POLICY_DENIED`,
   * `BUDGET_EXCEEDED`, `FORBIDDEN`, `INVALID_REQUEST`, `DUPLICATE_CALL_ID`, …), `failed`
   * (`HANDLER_ERROR`, `TIMEOUT`, `OUTPUT_TOO_LARGE`, `UNAVAILABLE`, …), `awaiting_approval`
   * (`CONFIRMATION_REQUIRED`, with `approvalId`; only without `wait`), `denied`
   * (`APPROVAL_DENIED`), `expired` (`APPROVAL_EXPIRED`), `outcome_unknown` (`OUTCOME_UNKNOWN`) or
   * `pending` (`WAIT_TIMEOUT`: the wait ran out, the call may still end). When a span is active
   * (the agent's own OpenTelemetry tracing), the request carries its `traceparent`: that span is
   * the parent of the call's trace.
   *
   * @param tool - `<domain>.<capability>`, or its wire name (`kb__search`).
   * @param args - the tool's arguments, validated by the registry against its inputSchema.
   * @example
   * ```ts
   * const r = await agent.call("kb.search", { query: "refund" });
   * if (r.ok) use(r.data);
   * else if (r.status === "awaiting_approval") tell(`waiting for approval ${r.approvalId}`);
   * else if (r.error?.retryable) retryLater();
   * ```
   */
  call(tool: string, args: unknown, opts?: CallOptions): Promise<ToolResult>;
  /**
   * What this principal may call in this mode, compiled by the registry, with `formatted` ready
   * to hand to a model. Errors: `INVALID_REQUEST` (a bad query), `UNAVAILABLE` (no registry
   * answered), `FORBIDDEN` (asked for another principal's view).
   * @example
   * ```ts
   * const v = await agent.toolView({ format: "anthropic", explain: true });
   * if (v.ok) console.log(v.value.view.tools.map((t) => t.name), v.value.view.hidden);
   * ```
   */
  toolView(query?: AgentToolViewQuery): Promise<Outcome<ToolViewResult>>;
  /**
   * Which tools serve an intent: the ranked candidates (`view.candidates`, each with its score and
   * why) among what this principal may see anyway, and a view of just those, capped at `limit`
   * (default 5), ready for a model. Deterministic: the same intent and tools rank the same.
   * @example
   * ```ts
   * const r = await agent.resolve({ goal: "refund the customer's last invoice", domain: "billing" }, { limit: 3 });
   * if (r.ok) console.log(r.value.view.candidates); // [{ name: "billing.refund", score: 6, reasons: [...] }, …]
   * ```
   */
  resolve(intent: ToolIntent, query?: Omit<AgentToolViewQuery, "intent">): Promise<Outcome<ToolViewResult>>;
  /**
   * The answer of a call this principal already asked for, e.g. one that came back
   * `awaiting_approval` and has since been approved: reads it (nothing is asked again, so the call
   * runs at most once) and, by default, waits for its end. `tool` is the name or wire name it was
   * called by (its domain locates the call). Resolves to a {@link ToolResult}, never throws; a call
   * id this principal never used comes back `pending` once the wait runs out.
   * @example
   * ```ts
   * const r = await agent.call("ticket.fill", args);
   * if (r.status === "awaiting_approval") {
   *   // …a person approves r.approvalId…
   *   const done = await agent.awaitCall(r.callId, "ticket.fill", { timeoutMs: 60_000 });
   * }
   * ```
   */
  awaitCall(callId: string, tool: string, opts?: AwaitCallOptions): Promise<ToolResult>;
  /**
   * Resumes waiting for a call this principal asked for earlier, by its id alone (kept across a
   * restart: another client instance, another process): the registry finds the call's domain from
   * the principal's own request, nothing is asked again, and the answer has the shape `call()`
   * returns. A call id this principal never used comes back `failed` with `NOT_FOUND`.
   * @example
   * ```ts
   * const r = await agent.call("ticket.fill", args, { idempotencyKey: "ticket-17" });
   * saveCheckpoint(r.callId); // the process may stop here
   * // …later, in a new process…
   * const done = await agent.result(loadCheckpoint(), { wait: true, timeoutMs: 60_000 });
   * ```
   */
  result(callId: string, opts?: ResultOptions): Promise<ToolResult>;
  /**
   * The events of one of this principal's calls as the stream holds them now, without waiting:
   * its request, its approval request and its outcome, those there are (in no particular order);
   * for showing a call's state beside its result (the approval card's title and args). A call id
   * this principal never used is `NOT_FOUND`.
   * @example
   * ```ts
   * const e = await agent.events(callId);
   * const asked = e.ok ? e.value.find((ev) => ev.type === "ApprovalRequested") : undefined;
   * ```
   */
  events(callId: string): Promise<Outcome<WardenEvent[]>>;
  /**
   * Cancels one of this principal's calls that has not started (waiting for approval, or not yet
   * claimed by an executor). A cancelled call never runs; its waiters get status `cancelled`.
   * @example
   * ```ts
   * const r = await agent.call("customer.message", args);
   * if (r.status === "awaiting_approval") await agent.cancel(r.callId, "the customer called back");
   * ```
   */
  cancel(callId: string, reason?: string): Promise<CancelOutcome>;
  /**
   * Undoes one of this principal's calls that succeeded, when its tool declares a compensation:
   * calls the tool and args its executor recorded as the undo, as a governed call of its own
   * (policy and approval as for any call) linked to the original (`compensates`). A call is undone
   * at most once: asking again follows the same undo call. A call that cannot be undone comes back
   * `rejected` with `NOT_UNDOABLE` and why.
   * @example
   * ```ts
   * const filed = await agent.call("ticket.submit", ticket, { wait: true });
   * const undone = await agent.undo(filed.callId, { wait: true });
   * ```
   */
  undo(callId: string, opts?: Omit<CallOptions, "idempotencyKey" | "version" | "principal">): Promise<ToolResult>;
  /**
   * Follows this caller's view: `onChange` gets the new view whenever it differs from the last
   * one read (a tool registered, enabled or disabled, a new policy version), on the registry's
   * `warden.registry.changed` announcements and every `pollMs`. Call `stop()` when done.
   * @example
   * ```ts
   * const watch = agent.watchToolView({ format: "mcp" }, (v) => server.sendToolListChanged());
   * await watch.ready;
   * ```
   */
  watchToolView(query: AgentToolViewQuery, onChange: (view: ToolViewResult) => void, opts?: ToolViewWatchOptions): ToolViewWatch;
  /**
   * Ends the waits of calls in flight (they come back `pending`) and makes later calls fail with
   * `UNAVAILABLE`; the bus stays open (close it yourself).
   */
  close(): Promise<void>;
}

/**
 * An agent's client: asks for tool calls as `principal` and reads their outcomes, and compiles
 * the ToolView it may show a model. The client needs no JetStream access: it publishes the
 * request and reads its own call through the registry.
 *
 * @example
 * ```ts
 * import { connectBus, loadBusConfig } from "@warden/bus";
 * import { createAgentClient, toModelMessage } from "@warden/sdk";
 *
 * // NATS_CREDS=.warden/identities/support-bot/nats.creds
 * const bus = await connectBus(loadBusConfig(process.env), "my-agent");
 * const agent = createAgentClient({ bus, principal: "support-bot" });
 * const tools = await agent.toolView({ format: "openai" });
 * const result = await agent.call("kb.search", { query: "refund" });
 * const forTheModel = toModelMessage(result); // "ERROR POLICY_DENIED: …" or the output
 * await agent.close();
 * await bus.close();
 * ```
 */
export function createAgentClient(options: AgentClientOptions): AgentClient {
  const { bus, principal } = options;
  const mode = options.mode ?? "llm";
  const runId = options.runId ?? newId();
  const defaultTimeoutMs = options.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
  const inFlight = new Set<InFlight>();
  const registry = createRegistryClient(bus);
  let closed = false;

  const track = (f: InFlight) => {
    inFlight.add(f);
    return () => void inFlight.delete(f);
  };

  async function toolView(query: AgentToolViewQuery = {}): Promise<Outcome<ToolViewResult>> {
    const given = Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined));
    const request = ToolViewRequestSchema.safeParse({ principal, mode, ...given });
    if (!request.success) {
      const issue = request.error.issues[0];
      return fail("INVALID_REQUEST", `invalid view request at ${issue?.path.join(".") || "(root)"}: ${issue?.message ?? "invalid"}`);
    }
    return registry.view(request.data);
  }

  /** Builds, publishes and (if asked) awaits one request; `idempotent`: the call id may already hold this same request. */
  async function ask(callId: string, tool: string, args: unknown, opts: CallOptions, extra: { readonly idempotent: boolean; readonly compensates?: { callId: string; domain: string } }): Promise<ToolResult> {
    if (closed) return { callId, ok: false, status: "failed", error: wardenError("UNAVAILABLE", "the agent client is closed") };
    return inCallSpan({ callId, tool, principal: opts.principal ?? principal, mode: opts.mode ?? mode }, () => publishCall(callId, tool, args, opts, extra));
  }

  async function publishCall(callId: string, tool: string, args: unknown, opts: CallOptions, extra: { readonly idempotent: boolean; readonly compensates?: { callId: string; domain: string } }): Promise<ToolResult> {
    const built = safely(() => buildCallRequest({
      callId,
      eventId: newId(),
      tool,
      args,
      principal: opts.principal ?? principal,
      mode: opts.mode ?? mode,
      runId: opts.runId ?? runId,
      scope: opts.scope ?? null,
      flags: opts.flags ?? {},
      version: opts.version,
      parentCallId: opts.parentCallId,
      intent: opts.intent,
      compensates: extra.compensates,
      // the call's own span (inCallSpan), under the agent's active one: it parents the call's trace
      traceparent: activeTraceparent(),
      now: new Date(),
    }));
    if (!built.ok) return { callId, ok: false, status: "rejected", error: built.error };
    return publishAndAwait(
      bus,
      built.value,
      { wait: opts.wait ?? false, timeoutMs: opts.timeoutMs ?? defaultTimeoutMs, idempotent: extra.idempotent, ...(opts.onAccepted ? { onAccepted: opts.onAccepted } : {}) },
      track,
    );
  }

  return {
    principal,
    mode,
    runId,
    resolve: (intent, query = {}) => toolView({ ...query, intent }),
    async call(tool, args, opts = {}) {
      const key = opts.idempotencyKey;
      if (key !== undefined && (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH)) {
        return { callId: newId(), ok: false, status: "rejected", error: wardenError("INVALID_REQUEST", `an idempotency key is 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`) };
      }
      const callId = key === undefined ? newId() : idempotentCallId(opts.principal ?? principal, key);
      return ask(callId, tool, args, opts, { idempotent: key !== undefined });
    },
    async undo(callId, opts = {}) {
      // until the call is read, its undo's id (which names the call's domain) is not known
      const refused = (error: WardenError): ToolResult => ({ callId, ok: false, status: error.code === "UNAVAILABLE" ? "failed" : "rejected", error });
      if (closed) return refused(wardenError("UNAVAILABLE", "the agent client is closed"));
      if (!isSafeToken(callId)) return refused(wardenError("NOT_UNDOABLE", `${JSON.stringify(callId)} is no call id that can be undone`));
      const read = await readOwnCall(bus, principal, ANY_DOMAIN, callId, {});
      if (!read.ok) return { callId, ok: false, status: read.error.code === "NOT_FOUND" ? "rejected" : "failed", error: read.error };
      const finished = read.value.find((e) => e.type === "ToolCallFinished");
      const domain = finished?.domain ?? read.value[0]?.domain ?? ANY_DOMAIN;
      const undoId = undoCallIdOf(principal, domain, callId);
      const notUndoable = (message: string): ToolResult => ({ callId: undoId, ok: false, status: "rejected", error: wardenError("NOT_UNDOABLE", message) });
      if (finished === undefined || !finished.data.ok) return notUndoable(`call ${callId} has not succeeded: only a call that succeeded can be undone`);
      if (finished.data.undo === undefined) return notUndoable(`${finished.tool} declares no compensation: call ${callId} cannot be undone by Warden`);
      const { tool, args } = finished.data.undo;
      // the undo's id carries this principal's tag: the registry answers no one else's request under it
      return ask(undoId, tool, args, { ...opts, intent: opts.intent ?? { goal: `undo call ${callId} (${finished.tool})` } }, {
        idempotent: true,
        compensates: { callId, domain: finished.domain },
      });
    },
    toolView,
    async awaitCall(callId, tool, opts = {}) {
      if (closed) return { callId, ok: false, status: "failed", error: wardenError("UNAVAILABLE", "the agent client is closed") };
      if (!isSafeToken(callId)) return { callId, ok: false, status: "rejected", error: wardenError("INVALID_REQUEST", "a call id is a safe token (^[A-Za-z0-9_-]{1,128}$)") };
      const ref = { principal, domain: domainOfTool(tool), callId };
      return awaitOwnCall(bus, ref, { wait: opts.wait ?? true, timeoutMs: opts.timeoutMs ?? defaultTimeoutMs }, track);
    },
    async result(callId, opts = {}) {
      if (closed) return { callId, ok: false, status: "failed", error: wardenError("UNAVAILABLE", "the agent client is closed") };
      if (!isSafeToken(callId)) return { callId, ok: false, status: "rejected", error: wardenError("INVALID_REQUEST", "a call id is a safe token (^[A-Za-z0-9_-]{1,128}$)") };
      // the registry locates the domain of this principal's own request under the id
      const ref = { principal, domain: ANY_DOMAIN, callId };
      return awaitOwnCall(bus, ref, { wait: opts.wait ?? true, timeoutMs: opts.timeoutMs ?? defaultTimeoutMs }, track);
    },
    async events(callId) {
      if (closed) return fail("UNAVAILABLE", "the agent client is closed");
      if (!isSafeToken(callId)) return fail("INVALID_REQUEST", "a call id is a safe token (^[A-Za-z0-9_-]{1,128}$)");
      // the registry locates the domain of this principal's own request under the id
      return readOwnCall(bus, principal, ANY_DOMAIN, callId, {});
    },
    cancel(callId, reason) {
      return cancelCall(bus, principal, callId, reason);
    },
    watchToolView(query, onChange, opts) {
      return watchToolViewOn(bus, () => toolView(query), onChange, opts);
    },
    async close() {
      closed = true;
      for (const f of inFlight) f.cancel();
    },
  };
}

/**
 * Runs request building so that args no JSON can carry (circular, nested past the validator's
 * stack) come back as INVALID_REQUEST instead of an exception: `call` always answers a value.
 */
function safely<T>(build: () => Outcome<T>): Outcome<T> {
  try {
    return build();
  } catch (err) {
    return fail("INVALID_REQUEST", `args cannot be sent as JSON: ${(err as Error).message}`);
  }
}
