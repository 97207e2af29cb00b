import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CallToolRequestSchema,
  ElicitResultSchema,
  ErrorCode,
  GetTaskPayloadRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  RELATED_TASK_META_KEY,
  type CallToolResult,
  type CreateTaskResult,
  type ListToolsResult,
  type ReadResourceResult,
  type ServerNotification,
} from "@modelcontextprotocol/sdk/types.js";
import { silentLogger, type Bus, type Logger } from "@warden/bus";
import { toModelMessage, type ToolResult, type WardenEvent } from "@warden/contracts/events";
import { type CallMode } from "@warden/contracts/descriptor";
import { createAgentClient, createApproverClient, DEFAULT_CALL_TIMEOUT_MS, type AgentClient, type ToolViewWatch } from "@warden/sdk";
import { createCallTasks, sameCallKeys } from "./call-tasks.js";
import { toMcpCallResult } from "./domain/call-result.js";
import { CALL_HANDLE_TEMPLATE, callHandleUri, callIdOfHandle, callTaskOf, endedResult } from "./domain/call-task.js";
import { confirmationPath, confirmationRequest, confirmedBy, confirmElsewhereNote, type Confirmation } from "./domain/confirmation.js";
import { parseMcpToolList, toListedTool, type McpTool } from "./domain/mcp-tools.js";

/** Options of {@link createWardenMcpSession}. */
export interface WardenMcpSessionOptions {
  /**
   * A connection made with the session's credentials: the session acts as the identity they name,
   * whatever an MCP client sends (tool arguments never carry a principal).
   */
  readonly bus: Bus;
  /** The identity the bus's credentials name (`identityOfCreds` of `@warden/bus`). */
  readonly principal: string;
  /**
   * Who decides the calls: `llm` (a model chose them; the default, and what an MCP client's model
   * does), `plan` or `human` (only a principal the policy document names a person).
   * @default "llm"
   */
  readonly mode?: CallMode;
  /** @default null */
  readonly scope?: string | null;
  /** Feature flags the session turns off (never on). @default {} */
  readonly flags?: Readonly<Record<string, boolean>>;
  /** The run the session's calls count against (budgets). @default a new id per session */
  readonly runId?: string;
  /**
   * How long `tools/call` of a client that did not ask for a task waits for a call's end, through
   * a person's approval, before it answers "still running" with the call's handle resource (the
   * call goes on in Warden). @default 30_000
   */
  readonly callTimeoutMs?: number;
  /** How often a client should poll a task (`pollInterval` of each task). @default 1_000 */
  readonly taskPollIntervalMs?: number;
  /** How often a call the client asked progress for reports it. @default 2_000 */
  readonly progressIntervalMs?: number;
  /** How often the view is read again besides the registry's announcements. @default 30_000 */
  readonly viewPollMs?: number;
  /**
   * Ask the session's own person to confirm a call that waits for them, through MCP elicitation,
   * when the client supports it and the policy lets the requester confirm (mode `human`, a person).
   * Only a session connected over stdio ever asks (the client is the process the person started);
   * over any other transport (HTTP) the call waits for a decision in the inbox or `warden approve`.
   * @default true
   */
  readonly confirmInClient?: boolean;
  readonly log?: Logger;
  /** The server's version in `initialize`. */
  readonly version?: string;
}

/** One MCP session: the MCP server of one client connection, acting as one principal. */
export interface WardenMcpSession {
  readonly server: Server;
  readonly client: AgentClient;
  /** Resolves once the first view was read (its failure is logged; tools/list says it again). */
  readonly ready: Promise<void>;
  connect(transport: Transport): Promise<void>;
  close(): Promise<void>;
}

const INSTRUCTIONS =
  "Tools governed by Warden: every call is checked against policy and recorded. A result that starts " +
  "with PENDING waits for a person's approval and has not run yet: tell the user, and read the " +
  "warden://calls/<callId> resource it links later for its outcome; calling it again with the same " +
  "arguments follows the same call. An ERROR result names its code and whether a retry can help.";

/** How long a call asked for as a task may take before its task is answered (a quick call's task is already complete). */
const TASK_START_WAIT_MS = 1_000;
/** One long read of tasks/result; it reads again until the call ends or the client gives up. */
const TASK_RESULT_SLICE_MS = 5_000;

/** Whether a call goes on after this answer: it waits for a person, or its wait ran out. */
function goesOn(r: ToolResult): boolean {
  return r.status === "awaiting_approval" || r.status === "pending";
}

/**
 * The MCP server of one session: `tools/list` is exactly the principal's ToolView in the session's
 * mode, rendered by the registry for MCP (wire names, JSON Schemas, hints from grade and flags);
 * `tools/call` is a governed Warden call; `notifications/tools/list_changed` follows the view.
 */
export function createWardenMcpSession(opts: WardenMcpSessionOptions): WardenMcpSession {
  const { bus, principal } = opts;
  const mode = opts.mode ?? "llm";
  const log = (opts.log ?? silentLogger()).child({ principal, mode });
  const flags = opts.flags ?? {};
  const scope = opts.scope ?? null;
  const callTimeoutMs = opts.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
  const progressIntervalMs = opts.progressIntervalMs ?? 2_000;
  const client = createAgentClient({ bus, principal, mode, ...(opts.runId === undefined ? {} : { runId: opts.runId }) });
  const tasks = createCallTasks({ client, pollIntervalMs: opts.taskPollIntervalMs ?? 1_000, resultOf: (events) => resultOfEnded(events) });
  const sameCalls = sameCallKeys(client.runId, async (callId) => {
    const events = await tasks.events(callId).catch(() => undefined);
    return events !== undefined && endedResult(events) !== undefined;
  });
  const server = new Server(
    { name: "warden", title: "Warden", version: opts.version ?? "0.1.0" },
    {
      capabilities: {
        tools: { listChanged: true },
        resources: {},
        tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
      },
      instructions: INSTRUCTIONS,
      // tasks/get, tasks/list and tasks/cancel read and cancel Warden calls through it
      taskStore: tasks.store,
    },
  );
  let connected = false;
  let closed = false;
  // only stdio's client is the person's own process; anything else (HTTP) fails closed
  let ownProcess = false;

  const query = { format: "mcp" as const, scope, flags };
  const watch: ToolViewWatch = client.watchToolView(
    query,
    () => {
      log.info("tool view changed");
      if (connected && !closed) server.sendToolListChanged().catch((err: unknown) => log.warn({ err }, "list_changed not sent"));
    },
    { ...(opts.viewPollMs === undefined ? {} : { pollMs: opts.viewPollMs }), onError: (error) => log.warn({ code: error.code, message: error.message }, "tool view not read") },
  );
  const ready = watch.ready.then(() => undefined);

  /** The tools as listed now: read again, so a list is never older than the call that asks for it. */
  async function currentTools(): Promise<McpTool[]> {
    await watch.refresh();
    const view = watch.current();
    if (view === undefined) {
      const again = await client.toolView(query);
      if (!again.ok) throw new McpError(ErrorCode.InternalError, `Warden could not list your tools: ${again.error.code}: ${again.error.message}`);
      return toolsOf(again.value.formatted);
    }
    return toolsOf(view.formatted);
  }

  function toolsOf(formatted: Parameters<typeof parseMcpToolList>[0]): McpTool[] {
    const parsed = parseMcpToolList(formatted);
    if (!parsed.ok) throw new McpError(ErrorCode.InternalError, parsed.error.message);
    return parsed.value;
  }

  /** Whether the last view read lists this tool with an output schema (then results carry structured content). */
  function hasOutputSchema(wireName: string): boolean {
    const view = watch.current();
    if (view === undefined) return false;
    const parsed = parseMcpToolList(view.formatted);
    return parsed.ok && parsed.value.some((t) => t.name === wireName && t.outputSchema !== undefined);
  }

  server.setRequestHandler(ListToolsRequestSchema, async (): Promise<ListToolsResult> => ({ tools: (await currentTools()).map(toListedTool) }));

  /** A call's result as tools/call would answer it, from its events once it ended. */
  async function resultOfEnded(events: readonly WardenEvent[]): Promise<CallToolResult> {
    // a session that just connected (a client back for its task) knows the output schemas once its first view is read
    await ready;
    const ended = endedResult(events);
    if (ended === undefined) throw new McpError(ErrorCode.InternalError, "the call has not ended");
    const asked = events.find((e) => e.type === "ToolCallRequested");
    return toMcpCallResult(ended, { hasOutputSchema: hasOutputSchema(asked?.tool ?? "") }) as CallToolResult;
  }

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult | CreateTaskResult> => {
    const name = request.params.name;
    const args = request.params.arguments ?? {};
    const asTask = request.params.task !== undefined;
    const started = Date.now();
    const progressToken = request.params._meta?.progressToken;
    let progress = 0;
    let waitingFor = "Warden";
    const report = (message: string) => {
      if (progressToken === undefined) return;
      progress += 1;
      const note: ServerNotification = { method: "notifications/progress", params: { progressToken, progress, message } };
      extra.sendNotification(note).catch((err: unknown) => log.debug({ err }, "progress not sent"));
    };
    const timer = progressToken === undefined ? undefined : setInterval(() => report(`${name}: waiting for ${waitingFor} (${Math.round((Date.now() - started) / 1000)} s)`), progressIntervalMs);
    try {
      // the same ask while its first call goes on follows that call: one approval, one run
      const ticket = await sameCalls.keyFor(name, args);
      const firstWait = asTask ? Math.min(callTimeoutMs, TASK_START_WAIT_MS) : callTimeoutMs;
      let result = await client.call(name, args, { scope, flags, timeoutMs: firstWait, ...(ticket === undefined ? {} : { idempotencyKey: ticket.key }) });
      log.info({ tool: name, callId: result.callId, status: result.status, code: result.error?.code, task: asTask }, "mcp tool call");
      let note: string | undefined;
      if (result.status === "awaiting_approval" && result.approvalId !== undefined) {
        ({ result, note } = await confirmInClientIfAllowed(result, name, extra.sendRequest, report));
      }
      if (asTask) {
        ticket?.settle(result.callId, !goesOn(result));
        const task = await tasks.task(result.callId);
        // a request that never reached the stream (refused as it was built or published) has no task to follow
        if (task === undefined) throw new McpError(ErrorCode.InvalidParams, toModelMessage(result));
        tasks.remember(result.callId);
        return { task };
      }
      if (goesOn(result)) {
        // a client without tasks waits here, with progress, up to the bound; then it gets the call's handle
        waitingFor = result.approvalId === undefined ? "Warden" : `a person's approval (${result.approvalId})`;
        const left = callTimeoutMs - (Date.now() - started);
        if (left > 0) {
          const after = await client.awaitCall(result.callId, name, { timeoutMs: left });
          // still waiting at the approval: answered as the approval request it is
          if (!(after.status === "pending" && result.status === "awaiting_approval")) result = after;
        }
      }
      const onGoing = goesOn(result);
      ticket?.settle(result.callId, !onGoing);
      if (onGoing) tasks.remember(result.callId);
      return toMcpCallResult(result, { hasOutputSchema: hasOutputSchema(name), handle: onGoing, ...(note === undefined ? {} : { note }) }) as CallToolResult;
    } finally {
      if (timer !== undefined) clearInterval(timer);
    }
  });

  // tasks/result waits on Warden's own long reads rather than the SDK's polling of tasks/get
  server.setRequestHandler(GetTaskPayloadRequestSchema, async (request, extra) => {
    const taskId = request.params.taskId;
    for (;;) {
      const events = await tasks.events(taskId);
      if (events === undefined) throw new McpError(ErrorCode.InvalidParams, `Task not found: ${taskId}`);
      if (endedResult(events) !== undefined) {
        const result = await resultOfEnded(events);
        return { ...result, _meta: { ...result._meta, [RELATED_TASK_META_KEY]: { taskId } } };
      }
      if (extra.signal.aborted || closed) throw new McpError(ErrorCode.ConnectionClosed, `the session closed before call ${taskId} ended`);
      await client.result(taskId, { wait: true, timeoutMs: TASK_RESULT_SLICE_MS });
    }
  });

  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [
      {
        uriTemplate: CALL_HANDLE_TEMPLATE,
        name: "warden-call",
        title: "A Warden call",
        description: "One of your calls: its state (waiting for whom, or how it ended) and, once it has ended, its result.",
        mimeType: "application/json",
      },
    ],
  }));

  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: tasks.made().map((callId) => ({ uri: callHandleUri(callId), name: callId, title: `Warden call ${callId}`, mimeType: "application/json" })),
  }));

  server.setRequestHandler(ReadResourceRequestSchema, async (request): Promise<ReadResourceResult> => {
    const uri = request.params.uri;
    const callId = callIdOfHandle(uri);
    if (callId === undefined) throw new McpError(ErrorCode.InvalidParams, `no such resource: this server serves ${CALL_HANDLE_TEMPLATE}`);
    const events = await tasks.events(callId);
    const task = events === undefined ? undefined : callTaskOf(events, { pollIntervalMs: 0 });
    if (events === undefined || task === undefined) throw new McpError(ErrorCode.InvalidParams, `no call ${callId} of ${principal}`);
    const ended = endedResult(events);
    const asked = events.find((e) => e.type === "ToolCallRequested");
    const state = {
      callId,
      tool: asked?.tool ?? null,
      status: ended?.status ?? (task.status === "input_required" ? "awaiting_approval" : "running"),
      message: task.statusMessage ?? null,
      ...(ended === undefined ? {} : { result: await resultOfEnded(events) }),
    };
    return { contents: [{ uri, mimeType: "application/json", text: JSON.stringify(state, null, 2) }] };
  });

  /**
   * A call waiting for a person who is this session's own: ask them in the client (MCP
   * elicitation) when the client is their own process and can ask, and the approval lets the
   * requester confirm; their answer is their decision, recorded as any other. Over HTTP the
   * pending result says where to confirm instead. Otherwise it goes back as it is.
   */
  async function confirmInClientIfAllowed(
    pending: ToolResult,
    tool: string,
    sendRequest: Parameters<Parameters<typeof server.setRequestHandler>[1]>[1]["sendRequest"],
    report: (message: string) => void,
  ): Promise<{ result: ToolResult; note?: string }> {
    const unchanged = { result: pending };
    if (opts.confirmInClient === false || mode !== "human") return unchanged;
    const approver = createApproverClient({ bus, approver: principal });
    const inbox = await approver.pending();
    if (!inbox.ok) return unchanged;
    // the person's own inbox lists it only if they may decide it; the requester only where the policy says so
    const approval = inbox.value.find((a) => a.approvalId === pending.approvalId);
    const path = confirmationPath({
      principal,
      mode,
      ownProcess,
      mayAsk: server.getClientCapabilities()?.elicitation !== undefined,
      approval,
    });
    if (approval === undefined || path === "none") return unchanged;
    if (path === "elsewhere") {
      log.info({ approvalId: approval.approvalId }, "confirmation left to the inbox: the client is not the person's own process");
      return { result: pending, note: confirmElsewhereNote(approval) };
    }
    let confirmation: Confirmation;
    try {
      const answer = await sendRequest({ method: "elicitation/create", params: confirmationRequest(approval, tool) }, ElicitResultSchema, { timeout: callTimeoutMs });
      confirmation = confirmedBy(answer);
    } catch (err) {
      log.info({ err, approvalId: approval.approvalId }, "confirmation not asked in the client");
      return unchanged;
    }
    if (confirmation === "cancel") return unchanged;
    const decided =
      confirmation === "confirm"
        ? await approver.approve(approval.approvalId, approval.argsHash, "confirmed by the requester in their MCP client")
        : await approver.deny(approval.approvalId, approval.argsHash, "declined by the requester in their MCP client");
    log.info({ approvalId: approval.approvalId, confirmation, ok: decided.ok }, "requester answered in the client");
    if (!decided.ok) return unchanged;
    report(`${tool}: ${confirmation === "confirm" ? "confirmed, running" : "declined"}`);
    return { result: await client.awaitCall(pending.callId, tool, { timeoutMs: callTimeoutMs }) };
  }

  return {
    server,
    client,
    ready,
    async connect(transport) {
      ownProcess = transport instanceof StdioServerTransport;
      await server.connect(transport);
      connected = true;
    },
    async close() {
      if (closed) return;
      closed = true;
      watch.stop();
      await client.close();
      await server.close().catch(() => undefined);
    },
  };
}
