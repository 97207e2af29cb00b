import { BusConfigSchema, parseEnv } from "@warden/bus";
import { z } from "zod";
import type { ModelEndpoint } from "./model.js";

export const DEFAULT_MODEL = "gpt-4o-mini";

export const SubagentConfigSchema = BusConfigSchema.extend({
  /** Any OpenAI-compatible endpoint (OpenAI, Azure-compatible proxies, Ollama, vLLM, LM Studio). */
  OPENAI_BASE_URL: z.url().optional(),
  OPENAI_API_KEY: z.string().min(1).optional(),
  /** The model of subagents whose descriptor names none. */
  WARDEN_SUBAGENT_MODEL: z.string().min(1).default(DEFAULT_MODEL),
  /** A JSON file with the subagent descriptors to run; the demo's agent.triage when unset. */
  WARDEN_SUBAGENTS_FILE: z.string().min(1).optional(),
  /** Subagent calls run at once by this process. */
  WARDEN_SUBAGENT_CONCURRENCY: z.coerce.number().int().min(1).max(1024).default(16),
});
export type SubagentConfig = z.infer<typeof SubagentConfigSchema>;

/** What `npm run eval` reads: the endpoint, the model, and who the tool view is compiled for. */
export const EvalConfigSchema = SubagentConfigSchema.extend({
  WARDEN_EVAL_MODEL: z.string().min(1).optional(),
  WARDEN_EVAL_PRINCIPAL: z.string().regex(/^[A-Za-z0-9_-]{1,128}$/).default("support-bot"),
});
export type EvalConfig = z.infer<typeof EvalConfigSchema>;

/** The only reader of the environment. */
export function loadConfig(env: NodeJS.ProcessEnv): SubagentConfig {
  return parseEnv(SubagentConfigSchema, env);
}

export function loadEvalConfig(env: NodeJS.ProcessEnv): EvalConfig {
  return parseEnv(EvalConfigSchema, env);
}

export function endpointOf(config: Pick<SubagentConfig, "OPENAI_BASE_URL" | "OPENAI_API_KEY" | "WARDEN_SUBAGENT_MODEL">): ModelEndpoint {
  return { baseURL: config.OPENAI_BASE_URL, apiKey: config.OPENAI_API_KEY, defaultModel: config.WARDEN_SUBAGENT_MODEL };
}
