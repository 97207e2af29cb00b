import type { Bus, Logger } from "@warden/bus";
import { AGENT_DOMAIN } from "@warden/contracts/policy";
import { startExecutor, type Executor } from "@warden/executor";
import { parseSubagentDescriptor, type SubagentDescriptorInput } from "./descriptor.js";
import { endpointConfigured, openAiModelClient, type ModelClient, type ModelEndpoint } from "./model.js";
import { resolveGrades } from "./resolve-grades.js";
import { subagentTool } from "./subagent-tool.js";

export interface SubagentServiceDeps {
  readonly bus: Bus;
  readonly log: Logger;
  /** Every copy of the service runs the same subagents: they share the `agent` domain's consumers. */
  readonly agents: readonly SubagentDescriptorInput[];
  readonly endpoint: ModelEndpoint;
  /** Replaces the OpenAI client (a scripted model in tests of the loop alone). */
  readonly model?: ModelClient;
  readonly concurrency?: number;
  /** How long to wait for the registry and the allowed tools at start (default 30 s). */
  readonly registerTimeoutMs?: number;
  readonly executorId?: string;
  /** Approver public keys (base64 SPKI) pinned at provisioning: the only keys a grant is checked against. */
  readonly approverKeys?: readonly string[];
}

export interface SubagentService {
  readonly agents: readonly string[];
  readonly executor: Executor;
  stop(): Promise<void>;
}

/** Registers the subagents as tools of domain `agent` and runs their calls as an executor. */
export async function startSubagentService(o: SubagentServiceDeps): Promise<SubagentService> {
  const log = o.log.child({ component: "subagent" });
  const agents = o.agents.map(parseSubagentDescriptor);
  const registerTimeoutMs = o.registerTimeoutMs ?? 30_000;
  const grades = await resolveGrades(o.bus, log, agents, registerTimeoutMs);
  const configured = endpointConfigured(o.endpoint);
  if (!configured) log.warn({ set: ["OPENAI_BASE_URL", "OPENAI_API_KEY"] }, "no model endpoint configured: subagent calls will fail until one is set");
  const deps = { bus: o.bus, model: o.model ?? (configured ? openAiModelClient(o.endpoint) : undefined), defaultModel: o.endpoint.defaultModel };
  const tools = agents.map((a) => subagentTool(a, grades.get(a.name) ?? "send", deps));
  const executor = await startExecutor({
    bus: o.bus,
    log,
    domain: AGENT_DOMAIN,
    tools,
    registerTimeoutMs,
    ...(o.concurrency === undefined ? {} : { concurrency: o.concurrency }),
    ...(o.executorId === undefined ? {} : { executorId: o.executorId }),
    ...(o.approverKeys === undefined ? {} : { approverKeys: o.approverKeys }),
  });
  return { agents: agents.map((a) => a.name), executor, stop: () => executor.stop() };
}
