import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A tool call a scripted turn makes; `arguments` is sent as given when a string (malformed JSON too). */
export interface ScriptedToolCall {
  readonly name: string;
  readonly arguments: string | Record<string, unknown>;
  readonly id?: string;
}

/** One model turn: tool calls, or a final answer (content), with the usage it reports. */
export interface ScriptedTurn {
  readonly content?: string;
  readonly toolCalls?: readonly ScriptedToolCall[];
  readonly usage?: { readonly prompt_tokens: number; readonly completion_tokens: number };
  /** Wait this long before answering (a slow model, for time budgets). */
  readonly delayMs?: number;
  /** Answer only once this settles (a test holds the model mid-turn while it looks around). */
  readonly waitFor?: Promise<unknown>;
  /** Answer with this HTTP error status instead. */
  readonly status?: number;
}

/** What the server received: the request body as parsed JSON. */
export interface RecordedRequest {
  readonly path: string;
  readonly authorization: string | undefined;
  readonly body: {
    readonly model: string;
    readonly messages: readonly { role: string; content?: unknown; tool_calls?: unknown; tool_call_id?: string }[];
    readonly tools?: readonly { type: string; function: { name: string; description?: string; parameters?: unknown } }[];
    readonly [key: string]: unknown;
  };
}

export interface ScriptedOpenAi {
  /** The base URL to give the SDK (`http://127.0.0.1:<port>/v1`). */
  readonly baseURL: string;
  /** Every request received, in order (also the ones no turn was left for). */
  readonly requests: RecordedRequest[];
  /** Queues turns for one model name; requests for that model play them in order. */
  script(model: string, turns: readonly ScriptedTurn[]): void;
  /** The requests made for one model. */
  requestsFor(model: string): RecordedRequest[];
  /** Turns queued for a model and not played yet. */
  remaining(model: string): number;
  stop(): Promise<void>;
}

const DEFAULT_USAGE = { prompt_tokens: 50, completion_tokens: 10 };

/**
 * A scripted OpenAI-compatible endpoint (POST /v1/chat/completions) on a free port: it plays the
 * turns queued per model name and records every request, so a test can assert on exactly what
 * the model was shown. A request with `stream: true` (`streamText`) gets the same turn as
 * server-sent `chat.completion.chunk` events. A model with no turn left gets a 500 that says so.
 */
export async function startScriptedOpenAi(): Promise<ScriptedOpenAi> {
  const queues = new Map<string, ScriptedTurn[]>();
  const requests: RecordedRequest[] = [];
  let served = 0;
  const open = new Set<ServerResponse>();

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    open.add(res);
    res.on("close", () => open.delete(res));
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) return send(res, 404, { error: { message: `no route ${req.method} ${req.url}` } });
    let body: RecordedRequest["body"];
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as RecordedRequest["body"];
    } catch {
      return send(res, 400, { error: { message: "body is not JSON" } });
    }
    requests.push({ path: req.url, authorization: req.headers.authorization, body });
    const turn = queues.get(body.model)?.shift();
    if (turn === undefined) return send(res, 500, { error: { message: `scripted server: no turn left for model ${body.model}`, type: "server_error" } });
    if (turn.delayMs !== undefined || turn.waitFor !== undefined) {
      await new Promise<void>((resolve) => {
        const t = turn.delayMs === undefined ? undefined : setTimeout(resolve, turn.delayMs);
        void turn.waitFor?.then(() => resolve(), () => resolve());
        // the client gave up (a time budget ran out): stop waiting
        res.on("close", () => {
          clearTimeout(t);
          resolve();
        });
      });
      if (res.destroyed || res.writableEnded) return;
    }
    if (turn.status !== undefined) return send(res, turn.status, { error: { message: `scripted error ${turn.status}`, type: "server_error" } });
    served += 1;
    const answer = completion(body.model, turn, served);
    if (body["stream"] === true) sendStream(res, answer);
    else send(res, 200, answer);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => send(res, 500, { error: { message: String(err) } }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    script(model, turns) {
      queues.set(model, [...(queues.get(model) ?? []), ...turns]);
    },
    requestsFor(model) {
      return requests.filter((r) => r.body.model === model);
    },
    remaining(model) {
      return queues.get(model)?.length ?? 0;
    },
    async stop() {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.destroyed || res.writableEnded) return;
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

/** A completion as the chunks a streaming client reads: the message in one delta, then the finish with usage. */
function sendStream(res: ServerResponse, answer: ReturnType<typeof completion>): void {
  if (res.destroyed || res.writableEnded) return;
  const { id, created, model, usage } = answer;
  const choice = answer.choices[0]!;
  const toolCalls = (choice.message.tool_calls ?? []).map((c, index) => ({ index, ...c }));
  const delta = { role: "assistant", ...(choice.message.content === null ? {} : { content: choice.message.content }), ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) };
  const chunk = (choices: unknown[], extra: object = {}) => `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices, ...extra })}\n\n`;
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  res.write(chunk([{ index: 0, delta, finish_reason: null }]));
  res.write(chunk([{ index: 0, delta: {}, finish_reason: choice.finish_reason }], { usage }));
  res.end("data: [DONE]\n\n");
}

function completion(model: string, turn: ScriptedTurn, n: number) {
  const usage = turn.usage ?? DEFAULT_USAGE;
  const toolCalls = (turn.toolCalls ?? []).map((c, i) => ({
    id: c.id ?? `call_${n}_${i}`,
    type: "function",
    function: { name: c.name, arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments) },
  }));
  return {
    id: `chatcmpl-scripted-${n}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: turn.content ?? null, refusal: null, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) },
        finish_reason: toolCalls.length > 0 ? "tool_calls" : "stop",
        logprobs: null,
      },
    ],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  };
}
