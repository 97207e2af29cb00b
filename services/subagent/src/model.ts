import OpenAI from "openai";
import type {
  ChatCompletionFunctionTool,
  ChatCompletionMessage,
  ChatCompletionMessageParam,
} from "openai/resources/chat/completions";
import type { WardenError } from "@warden/contracts/errors";

/** Where the subagents' model runs: any OpenAI-compatible endpoint. */
export interface ModelEndpoint {
  readonly baseURL?: string | undefined;
  readonly apiKey?: string | undefined;
  /** The model of descriptors that name none. */
  readonly defaultModel: string;
  /** SDK retries of one model request (default 1). */
  readonly maxRetries?: number | undefined;
}

export const ENDPOINT_VARIABLES = ["OPENAI_BASE_URL", "OPENAI_API_KEY"] as const;
const OPENAI_DEFAULT_URL = "https://api.openai.com/v1";

export function endpointConfigured(e: ModelEndpoint): boolean {
  return e.baseURL !== undefined || e.apiKey !== undefined;
}

/** The error a subagent call ends with when no endpoint is configured: it names what to set. */
export function notConfiguredError(agent: string): WardenError {
  return {
    code: "UNAVAILABLE",
    message:
      `subagent ${agent} has no model endpoint: set OPENAI_BASE_URL (an OpenAI-compatible endpoint, e.g. http://localhost:11434/v1) ` +
      "and OPENAI_API_KEY for the subagent service, then call it again",
    retryable: false,
    details: { missing: [...ENDPOINT_VARIABLES] },
  };
}

export interface ModelRequest {
  readonly model: string;
  readonly messages: readonly ChatCompletionMessageParam[];
  readonly tools: readonly ChatCompletionFunctionTool[];
}

export interface ModelReply {
  readonly message: ChatCompletionMessage;
  /** Tokens the request and the reply cost (the endpoint's count, else an estimate). */
  readonly tokens: number;
}

/** One model turn; rejects on endpoint errors and when `signal` aborts. */
export type ModelClient = (request: ModelRequest, signal: AbortSignal) => Promise<ModelReply>;

/** About four characters a token: used only when an endpoint reports no usage, so the budget still counts. */
function estimateTokens(request: ModelRequest, message: ChatCompletionMessage): number {
  return Math.ceil((JSON.stringify(request.messages).length + JSON.stringify(message).length) / 4);
}

export function openAiModelClient(e: ModelEndpoint): ModelClient {
  // every option is given so the SDK reads nothing from the environment itself
  const client = new OpenAI({
    baseURL: e.baseURL ?? OPENAI_DEFAULT_URL,
    // local endpoints (Ollama, vLLM) need no key, but the SDK insists on one
    apiKey: e.apiKey ?? "not-needed",
    organization: null,
    project: null,
    webhookSecret: null,
    maxRetries: e.maxRetries ?? 1,
  });
  return async (request, signal) => {
    const completion = await client.chat.completions.create(
      {
        model: request.model,
        messages: [...request.messages],
        ...(request.tools.length > 0 ? { tools: [...request.tools], tool_choice: "auto" as const } : {}),
      },
      { signal },
    );
    const choice = completion.choices[0];
    if (choice === undefined) throw new Error("the model endpoint answered with no choices");
    return { message: choice.message, tokens: completion.usage?.total_tokens ?? estimateTokens(request, choice.message) };
  };
}
