import type { Bus } from "@warden/bus";
import {
  fail,
  newId,
  ToolViewRequestSchema,
  wardenError,
  type CallMode,
  type JsonValue,
  type Outcome,
  type ToolResult,
  type ToolView,
  type ToolViewRequestInput,
} from "@warden/contracts";
import { publishAndAwait, type InFlight } from "./call-watch.js";
import { buildCallRequest } from "./domain/call-request.js";
import { createRegistryClient } from "./registry-client.js";

export const DEFAULT_CALL_TIMEOUT_MS = 30_000;

export interface AgentClientOptions {
  readonly bus: Bus;
  /** Who calls; the last token of every request subject. */
  readonly principal: string;
  /** Who decided to make calls; `llm` (the most restricted) unless said otherwise. */
  readonly mode?: CallMode;
  /** The run this client's calls belong to (budgets count per run); a new id when absent. */
  readonly runId?: string;
  /** How long a call waits for its outcome by default. */
  readonly timeoutMs?: number;
}

export interface CallOptions {
  readonly mode?: CallMode;
  readonly principal?: string;
  /** Where the caller is (a page, a screen); matched against a tool's scopes. */
  readonly scope?: string | null;
  readonly flags?: Readonly<Record<string, boolean>>;
  readonly runId?: string;
  /** Pin a tool version; otherwise the newest enabled version runs. */
  readonly version?: string;
  readonly parentCallId?: string;
  /** Wait through an approval to the call's end instead of returning at ApprovalRequested. */
  readonly wait?: boolean;
  readonly timeoutMs?: number;
}

export interface ToolViewResult {
  readonly view: ToolView;
  /** The view rendered in the requested format (OpenAI tools, Anthropic tools, MCP list, table). */
  readonly formatted: JsonValue;
}

/** A view request; principal and mode default to the client's. */
export type AgentToolViewQuery = Partial<ToolViewRequestInput>;

export interface AgentClient {
  readonly principal: string;
  readonly mode: CallMode;
  readonly runId: string;
  /** Asks for a tool call; always resolves to a result value, never throws. */
  call(tool: string, args: unknown, opts?: CallOptions): Promise<ToolResult>;
  toolView(query?: AgentToolViewQuery): Promise<Outcome<ToolViewResult>>;
  /** Ends the waits of calls in flight (they come back pending); the bus stays open. */
  close(): Promise<void>;
}

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

  return {
    principal,
    mode,
    runId,
    async call(tool, args, opts = {}) {
      const callId = newId();
      if (closed) return { callId, ok: false, status: "failed", error: wardenError("UNAVAILABLE", "the agent client is closed") };
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
        now: new Date(),
      }));
      if (!built.ok) return { callId, ok: false, status: "rejected", error: built.error };
      return publishAndAwait(bus, built.value, { wait: opts.wait ?? false, timeoutMs: opts.timeoutMs ?? defaultTimeoutMs }, track);
    },
    async toolView(query = {}) {
      const given = Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined));
      const request = ToolViewRequestSchema.safeParse({ principal, mode, ...given });
      if (!request.success) {
        const issue = request.error.issues[0];
        return fail("INVALID_REQUEST", `invalid view request at ${issue?.path.join(".") || "(root)"}: ${issue?.message ?? "invalid"}`);
      }
      return registry.view(request.data);
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
