import { createHash } from "node:crypto";
import type { TaskStore } from "@modelcontextprotocol/sdk/experimental/tasks/interfaces.js";
import { ErrorCode, McpError, type Result, type Task } from "@modelcontextprotocol/sdk/types.js";
import { type WardenEvent } from "@warden/contracts/events";
import { argsHash } from "@warden/contracts/json";
import type { AgentClient } from "@warden/sdk";
import { callTaskOf, endedResult } from "./domain/call-task.js";

/** How many of a session's calls it lists (tasks/list, resources/list); older ones are still readable by id. */
const LISTED_MAX = 100;

/**
 * The session's window onto its calls as MCP tasks and handles. Nothing is kept here but the ids
 * this session made (for listing): every state is read from Warden's stream, so a task is the
 * same in any session of the principal, also after the process that made it is gone.
 */
export interface CallTasks {
  /** The SDK's task store over Warden calls: the task id is the call id. */
  readonly store: TaskStore;
  /** The call's events, or undefined when this principal has no such call; other read failures throw. */
  events(callId: string): Promise<WardenEvent[] | undefined>;
  /** The call's task, or undefined when this principal has no such call. */
  task(callId: string): Promise<Task | undefined>;
  /** Notes a call this session made, for tasks/list and resources/list. */
  remember(callId: string): void;
  /** The ids this session made, newest last. */
  made(): readonly string[];
}

export interface CallTasksOptions {
  readonly client: AgentClient;
  readonly pollIntervalMs: number;
  /** The result a task answers tasks/result with once its call ended. */
  readonly resultOf: (events: readonly WardenEvent[]) => Promise<Result>;
}

export function createCallTasks(opts: CallTasksOptions): CallTasks {
  const { client } = opts;
  const made: string[] = [];

  async function events(callId: string): Promise<WardenEvent[] | undefined> {
    const read = await client.events(callId);
    if (read.ok) return read.value;
    // NOT_FOUND also answers a call id of another principal: the registry shows each only their own
    if (read.error.code === "NOT_FOUND" || read.error.code === "INVALID_REQUEST") return undefined;
    throw new McpError(ErrorCode.InternalError, `Warden could not read call ${callId}: ${read.error.code}: ${read.error.message}`);
  }

  async function task(callId: string): Promise<Task | undefined> {
    const read = await events(callId);
    return read === undefined ? undefined : callTaskOf(read, { pollIntervalMs: opts.pollIntervalMs });
  }

  const notKept = (what: string) => new McpError(ErrorCode.InvalidRequest, `Warden keeps a call's ${what} in its own stream; a client cannot set it`);

  const store: TaskStore = {
    // a task is made by a Warden call (tools/call), never by the SDK on its own
    createTask: () => Promise.reject(notKept("task")),
    getTask: async (taskId) => (await task(taskId)) ?? null,
    storeTaskResult: () => Promise.reject(notKept("result")),
    async getTaskResult(taskId) {
      const read = await events(taskId);
      if (read === undefined) throw new McpError(ErrorCode.InvalidParams, `Task not found: ${taskId}`);
      if (endedResult(read) === undefined) throw new McpError(ErrorCode.InvalidRequest, `call ${taskId} has not ended yet`);
      return opts.resultOf(read);
    },
    async updateTaskStatus(taskId, status) {
      // tasks/cancel is the one status change a client asks for: a cancel of the call, which only a call not yet started allows
      if (status !== "cancelled") throw notKept("status");
      const cancelled = await client.cancel(taskId, "cancelled by the MCP client (tasks/cancel)");
      if (!cancelled.ok) throw new McpError(ErrorCode.InvalidRequest, `call ${taskId} was not cancelled: ${cancelled.refusal}: ${cancelled.message}`);
    },
    async listTasks() {
      const tasks = await Promise.all(made.map((id) => task(id).catch(() => undefined)));
      return { tasks: tasks.filter((t): t is Task => t !== undefined) };
    },
  };

  return {
    store,
    events,
    task,
    remember(callId) {
      if (made.includes(callId)) return;
      made.push(callId);
      if (made.length > LISTED_MAX) made.shift();
    },
    made: () => made,
  };
}

/**
 * Gives the same session + tool + args the same idempotency key while its first call has not
 * ended, so asking again (a model that retries, a client that calls twice) follows that call
 * instead of opening a second approval. Once the call ended, the next ask is a new call: the key
 * takes the next generation. Two asks at once get one key, and Warden's one request per call id
 * makes them one call.
 */
export interface SameCallKeys {
  /** The key for this ask, or undefined when the args cannot be hashed (the call refuses them). */
  keyFor(tool: string, args: unknown): Promise<SameCallTicket | undefined>;
}

export interface SameCallTicket {
  readonly key: string;
  /** What this ask's call became: ended, or still going (then the same ask follows it). */
  settle(callId: string, ended: boolean): void;
}

export function sameCallKeys(session: string, hasEnded: (callId: string) => Promise<boolean>): SameCallKeys {
  const seen = new Map<string, { generation: number; callId?: string; ended: boolean }>();

  function identity(tool: string, args: unknown): string | undefined {
    try {
      return createHash("sha256").update(JSON.stringify([tool, argsHash(args)])).digest("base64url");
    } catch {
      return undefined;
    }
  }

  return {
    async keyFor(tool, args) {
      const id = identity(tool, args);
      if (id === undefined) return undefined;
      let entry = seen.get(id);
      if (entry === undefined) {
        entry = { generation: 0, ended: false };
        seen.set(id, entry);
      } else if (entry.callId !== undefined && (entry.ended || (await hasEnded(entry.callId)))) {
        entry = { generation: entry.generation + 1, ended: false };
        seen.set(id, entry);
      }
      const current = entry;
      return {
        key: `mcp/${session}/${current.generation}/${id}`,
        settle(callId, ended) {
          // an ask of an older generation that settles late leaves the current one alone
          if (seen.get(id) === current) Object.assign(current, { callId, ended });
        },
      };
    },
  };
}
