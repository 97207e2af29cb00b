import { idempotentCallId, toModelMessage, type ToolResult } from "@warden/contracts/events";
import { type ToolViewEntry } from "@warden/contracts/descriptor";
import type { AgentClient } from "../agent-client.js";

/**
 * A Warden call a framework's tool call is waiting on: enough to resume it in another process
 * (keep it next to the framework's saved run state).
 */
export interface PendingWardenCall {
  readonly callId: string;
  /** The tool's name (`ticket.fill`). */
  readonly tool: string;
  readonly approvalId?: string;
}

/** Options shared by the framework adapters. */
export interface FrameworkToolsOptions {
  /** The caller's scope for the view and every call. @default null */
  readonly scope?: string | null;
  /** Flags turned off for the view and every call. @default {} */
  readonly flags?: Readonly<Record<string, boolean>>;
  /** How long a tool waits for its call's end once a person approved it. @default the client's timeoutMs */
  readonly timeoutMs?: number;
  /** Calls an earlier process left waiting, by the framework's tool call id (`pendingCalls()` of its tools). */
  readonly pending?: Readonly<Record<string, PendingWardenCall>>;
}

/**
 * The one Warden call behind each tool call of a framework, by the framework's tool call id: asked
 * once when the framework asks whether the call needs approval, read back when it runs the tool,
 * so an approval interruption and its resumption are one Warden call, never two.
 */
export interface CallLedger {
  /** Asks for the call once per tool call id (again: the first answer). */
  ask(toolCallId: string | undefined, entry: ToolViewEntry, input: unknown): Promise<ToolResult>;
  /**
   * The call's answer as text for the model: the recorded answer or, for a call that waits for a
   * person, its end once approved (`waitForPerson`, the default) or the PENDING answer at once.
   */
  finish(toolCallId: string | undefined, entry: ToolViewEntry, input: unknown, opts?: { readonly waitForPerson?: boolean }): Promise<string>;
  pending(): Record<string, PendingWardenCall>;
  /**
   * The Warden call behind a tool call, without asking for one: this process's answer, a call an
   * earlier process left (`pending`), or the id its idempotency key derives; undefined when none is known.
   */
  locate(toolCallId: string, entry: ToolViewEntry): { readonly callId: string; readonly tool: string } | undefined;
  /** Drops a tool call whose Warden call ended outside `finish` (a person denied it). */
  forget(toolCallId: string): void;
}

/** Options of {@link createCallLedger} beyond the adapters' own. */
export interface CallLedgerOptions extends FrameworkToolsOptions {
  /**
   * An idempotency key per tool call: the Warden call id derives from it, so any process that
   * asks again for the same tool call follows the first Warden call instead of making a second.
   */
  readonly callKey?: (toolCallId: string) => string;
}

export function waitsForAPerson(r: ToolResult): boolean {
  return r.status === "awaiting_approval" || (r.status === "pending" && r.approvalId !== undefined);
}

export function createCallLedger(client: AgentClient, opts: CallLedgerOptions = {}): CallLedger {
  /** Each tool call's Warden answer so far, and the tool it called. */
  const answers = new Map<string, { readonly result: ToolResult; readonly tool: string }>();
  const resumed = new Map(Object.entries(opts.pending ?? {}));
  const callOptions = { scope: opts.scope ?? null, flags: opts.flags ?? {} };
  const waitOptions = opts.timeoutMs === undefined ? {} : { timeoutMs: opts.timeoutMs };

  async function ask(toolCallId: string | undefined, entry: ToolViewEntry, input: unknown): Promise<ToolResult> {
    if (toolCallId !== undefined) {
      const known = answers.get(toolCallId);
      if (known !== undefined) return known.result;
      const earlier = resumed.get(toolCallId);
      if (earlier !== undefined) {
        // a call an earlier process asked for: read where it is, never ask again
        const result = await client.awaitCall(earlier.callId, earlier.tool, { wait: false, timeoutMs: 5_000 });
        answers.set(toolCallId, { result, tool: earlier.tool });
        return result;
      }
    }
    const key = toolCallId === undefined ? undefined : opts.callKey?.(toolCallId);
    const result = await client.call(entry.name, input, key === undefined ? callOptions : { ...callOptions, idempotencyKey: key });
    if (toolCallId !== undefined) answers.set(toolCallId, { result, tool: entry.name });
    return result;
  }

  return {
    ask,
    async finish(toolCallId, entry, input, finishOpts = {}) {
      const first = await ask(toolCallId, entry, input);
      const tool = (toolCallId === undefined ? undefined : answers.get(toolCallId)?.tool) ?? entry.name;
      const wait = waitsForAPerson(first) && finishOpts.waitForPerson !== false;
      const result = wait ? await client.awaitCall(first.callId, tool, { wait: true, ...waitOptions }) : first;
      if (toolCallId !== undefined) {
        if (waitsForAPerson(result)) answers.set(toolCallId, { result, tool });
        else {
          answers.delete(toolCallId);
          resumed.delete(toolCallId);
        }
      }
      return toModelMessage(result);
    },
    locate(toolCallId, entry) {
      const known = answers.get(toolCallId);
      if (known !== undefined) return { callId: known.result.callId, tool: known.tool };
      const earlier = resumed.get(toolCallId);
      if (earlier !== undefined) return { callId: earlier.callId, tool: earlier.tool };
      const key = opts.callKey?.(toolCallId);
      return key === undefined ? undefined : { callId: idempotentCallId(client.principal, key), tool: entry.name };
    },
    forget(toolCallId) {
      answers.delete(toolCallId);
      resumed.delete(toolCallId);
    },
    pending() {
      const out: Record<string, PendingWardenCall> = {};
      for (const [id, { result, tool }] of answers) {
        if (!waitsForAPerson(result)) continue;
        out[id] = { callId: result.callId, tool, ...(result.approvalId === undefined ? {} : { approvalId: result.approvalId }) };
      }
      return out;
    },
  };
}
