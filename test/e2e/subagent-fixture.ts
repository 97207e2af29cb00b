import { DeliverPolicy } from "@nats-io/jetstream";
import { createLogger, decodeJson, silentLogger, type Bus } from "@warden/bus";
import { WardenEventSchema, type ToolCallRequested, type WardenEvent } from "@warden/contracts/events";
import { CALLS_SUBJECT_ROOT, STREAM_CALLS } from "@warden/contracts/subjects";
import { type IdentitySpecInput } from "@warden/contracts/permissions";
import { AGENT_DOMAIN, subagentPrincipal, type PolicyDocumentInput } from "@warden/contracts/policy";
import { startSubagentService, type SubagentDescriptorInput, type SubagentOutput, type SubagentService } from "@warden/subagent";
import { type ScriptedOpenAi, startScriptedOpenAi, useStarted } from "@warden/testing";
import { setUpOrStop } from "../support/use-test-warden.js";
import { deskAlice } from "../support/usual-principals.js";
import { startTestWarden, type TestWarden } from "../support/warden.js";

export interface SubagentWarden {
  readonly w: TestWarden;
  readonly model: ScriptedOpenAi;
  readonly service: SubagentService;
  /** The subagent service's identity: an executor of domain `agent` that calls as its subagents' principals. */
  readonly identity: IdentitySpecInput;
  stop(): Promise<void>;
}

/** The identity a subagent service running `agents` is provisioned with (as `warden up` mints it). */
export function subagentIdentity(agents: readonly SubagentDescriptorInput[]): IdentitySpecInput {
  return { kind: "subagent", name: "subagent", domains: [AGENT_DOMAIN], principals: agents.map((a) => subagentPrincipal(a.name)) };
}

/** The demo policy, with both ticket writes shown to models (a model proposes, a person confirms). */
export const SUBAGENT_TEST_POLICY: PolicyDocumentInput = {
  version: "subagent-e2e-1",
  principals: {
    alice: deskAlice(),
    bob: { kind: "human" },
    "support-bot": { kind: "agent" },
  },
  llm: { showWrite: ["ticket.fill", "ticket.submit"] },
};

/**
 * Every core service, the support desk and a subagent service whose model is the scripted server;
 * `beforeSubagents` starts what the agents' allowed tools need (their executors register them).
 */
export async function startSubagentWarden(agents: readonly SubagentDescriptorInput[], policy = SUBAGENT_TEST_POLICY, beforeSubagents?: (w: TestWarden) => Promise<void>): Promise<SubagentWarden> {
  const w = await startTestWarden({ demo: true, policy });
  await beforeSubagents?.(w);
  const model = await startScriptedOpenAi();
  const level = process.env["WARDEN_TEST_LOG"];
  const log = level ? createLogger("subagent-test", level) : silentLogger();
  const identity = subagentIdentity(agents);
  const service = await startSubagentService({
    bus: await w.nats.connectAs(identity),
    log,
    agents,
    endpoint: { baseURL: model.baseURL, apiKey: "test-key", defaultModel: "scripted-default" },
    approverKeys: w.approverKeys,
  });
  w.track(service);
  return {
    w,
    model,
    service,
    identity,
    async stop() {
      await w.stop();
      await model.stop();
    },
  };
}

/** A file's subagent Warden `s` and what its `setUp` made, read inside a test. */
export type UsedSubagentWarden<C extends object> = SubagentWarden & Readonly<C>;

export interface SubagentWardenOptions {
  readonly policy?: PolicyDocumentInput;
  /** Starts what the agents' allowed tools need before the subagent service starts. */
  readonly beforeSubagents?: (w: TestWarden) => Promise<void>;
}

/**
 * A file's subagent Warden (as `startSubagentWarden` makes it), started before its tests and stopped
 * after them; `setUp` then makes what the tests share (clients) and returns it. Read it inside a test:
 * before the file's `beforeAll` has run nothing is there yet, and reading it says so.
 */
export function useSubagentWarden<C extends object = object>(
  agents: readonly SubagentDescriptorInput[],
  options: SubagentWardenOptions = {},
  setUp?: (s: SubagentWarden) => Promise<C | void>,
): UsedSubagentWarden<C> {
  return useStarted(
    "useSubagentWarden",
    async () => {
      const s = await startSubagentWarden(agents, options.policy, options.beforeSubagents);
      return { ...s, ...(await setUpOrStop(s, setUp)) };
    },
    (started) => started.stop(),
  );
}

/** A subagent call's output, parsed (throws when the call did not succeed). */
export function outputOf(result: { ok: boolean; data?: unknown; error?: { code: string; message: string } }): SubagentOutput {
  if (!result.ok) throw new Error(`the subagent call failed: ${result.error?.code} ${result.error?.message}`);
  return result.data as SubagentOutput;
}

/** Every ToolCallRequested a principal published whose parent is `parentCallId`. */
export async function childRequests(bus: Bus, principal: string, parentCallId: string): Promise<ToolCallRequested[]> {
  return requestsBy(bus, principal, (e) => e.parentCallId === parentCallId);
}

/** Every ToolCallRequested a principal published that `keep` accepts, in stream order. */
export async function requestsBy(bus: Bus, principal: string, keep: (e: ToolCallRequested) => boolean): Promise<ToolCallRequested[]> {
  const consumer = await bus.js.consumers.get(STREAM_CALLS, {
    filter_subjects: `${CALLS_SUBJECT_ROOT}.*.*.ToolCallRequested.${principal}`,
    deliver_policy: DeliverPolicy.All,
  });
  try {
    const total = (await consumer.info(true)).num_pending;
    const out: ToolCallRequested[] = [];
    if (total === 0) return out;
    let seen = 0;
    for await (const m of await consumer.fetch({ max_messages: total, expires: 5_000 })) {
      seen += 1;
      const decoded = decodeJson(m.data);
      const parsed = decoded.ok ? WardenEventSchema.safeParse(decoded.value) : undefined;
      const event: WardenEvent | undefined = parsed?.success ? parsed.data : undefined;
      if (event?.type === "ToolCallRequested" && keep(event)) out.push(event);
      if (seen >= total) break;
    }
    return out;
  } finally {
    await consumer.delete().catch(() => undefined);
  }
}

/** The content of the tool messages a recorded model request carried. */
export function toolMessages(body: { messages: readonly { role: string; content?: unknown }[] }): string[] {
  return body.messages.filter((m) => m.role === "tool").map((m) => String(m.content));
}

export function toolNames(body: { tools?: readonly { function: { name: string } }[] }): string[] {
  return (body.tools ?? []).map((t) => t.function.name).sort();
}
