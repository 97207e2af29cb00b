import { runStage, type Bus, type Logger, type StageRunner, type StageSpec } from "@warden/bus";
import { acceptDecision, announceService } from "@warden/service-kit";
import { newId } from "@warden/contracts/events";
import { consumerName, DomainSchema, isSafeToken, stageFilterSubject } from "@warden/contracts/subjects";
import { type WardenError } from "@warden/contracts/errors";
import { type ToolStatus } from "@warden/contracts/descriptor";
import { pinApproverKeys } from "./approver-keys.js";
import { ArtifactWriter } from "./artifacts.js";
import type { ExecutableTool } from "./define-tool.js";
import type { ExecutorDeps } from "./executor-deps.js";
import { handleApprovalGranted } from "./handlers/approval-granted.js";
import { handleExhausted } from "./handlers/exhausted.js";
import { handleToolPolicyChecked } from "./handlers/tool-policy-checked.js";
import { startHeartbeat } from "./heartbeat.js";
import { watchBusSteadiness } from "./bus-steadiness.js";
import { createServerClock } from "./server-clock.js";
import { startPreviewResponder } from "./preview-responder.js";
import { registerTools, type Registered } from "./register.js";
import { SecretStore } from "./secret-store.js";

/** Options of {@link startExecutor}. */
export interface ExecutorOptions {
  /**
   * A connection with the domain's executor credentials (`warden principal add billing --kind
   * executor --domains billing`); the server lets it register, claim and answer only this domain's calls.
   */
  readonly bus: Bus;
  /** The process's root logger; the executor logs under a child with `executorId` and `domain`. */
  readonly log: Logger;
  /** Every tool must be `<domain>.<capability>` of this domain. */
  readonly domain: string;
  /** The tools from {@link defineTool}: at least one, one version per name, all of `domain`. */
  readonly tools: readonly ExecutableTool[];
  /**
   * The approver public keys pinned at provisioning (base64 SPKI DER Ed25519, as the approver's
   * `signingKey.publicKeyDerBase64`; loadApproverKeys reads them from WARDEN_APPROVER_PUBLIC_KEYS or
   * WARDEN_APPROVER_PUBLIC_KEYS_FILE). Grants are verified against these only. Without any, every
   * granted call is refused (a warning says so at start); allowed calls still run.
   * @default [] (no grant is accepted)
   */
  readonly approverKeys?: readonly string[];
  /**
   * A subject-safe id recorded on the events this executor writes.
   * @default `<domain>-<random id>`
   */
  readonly executorId?: string;
  /**
   * Calls run at once per stage (allowed, granted).
   * @default 64
   */
  readonly concurrency?: number;
  /**
   * How long to keep retrying while the registry is unavailable (it may start after the executor).
   * @default 30_000
   */
  readonly registerTimeoutMs?: number;
  /**
   * Status of versions the registry has not seen before.
   * @default "enabled"
   */
  readonly initialStatus?: ToolStatus;
  /**
   * How long a delivered call stays ours without a heartbeat before another executor may take it.
   * @default 10_000 (the bus's STAGE_ACK_WAIT_MS)
   */
  readonly ackWaitMs?: number;
  /**
   * How long past a claim's deadline its claimant may still be writing its result.
   * @default 2_000
   */
  readonly claimGraceMs?: number;
  /**
   * After an outage this executor saw, how long the bus must work again before another's claim
   * past its deadline is given up (re-run or outcome unknown): the claimant, cut off too, needs
   * to reconnect and retry its result.
   * @default 6_000
   */
  readonly claimCatchUpMs?: number;
  /**
   * The secrets handlers may read with `ctx.secrets.get(name)`: declared by name, each from an
   * environment variable or a key of a secrets file, e.g.
   * `new SecretStore([{ name: "stripe_key", env: "STRIPE_KEY" }], { env: process.env, secretsFile: process.env.WARDEN_SECRETS_FILE })`.
   * A secret declared `bind: "principal"` gives each call the value of the principal it runs for
   * (`ctx.onBehalfOf`); a tool listing one in its descriptor's `secrets` must declare `actsAs: "caller"`.
   * @default none (every `ctx.secrets.get` fails the call)
   */
  readonly secrets?: SecretStore;
  /**
   * How often this executor's heartbeat is written (`warden_executors`); the policy refuses calls
   * (UNAVAILABLE) to a domain with none for EXECUTOR_HEARTBEAT_TTL_S seconds.
   * @default 3_000 (EXECUTOR_HEARTBEAT_INTERVAL_MS)
   */
  readonly heartbeatIntervalMs?: number;
}

/** A running executor, as {@link startExecutor} returns it. */
export interface Executor {
  readonly executorId: string;
  readonly domain: string;
  /** What the registry answered: name, version, descriptorHash, status, created. */
  readonly registered: Registered;
  /** Stops taking calls and waits for running ones to finish (each is bounded by its timeout). */
  stop(): Promise<void>;
}

/**
 * A refused start: the registry refused the descriptors or could not be reached in time. `code`
 * says which: `REGISTRATION_CONFLICT` (the version is registered with other content: bump the
 * version), `DESCRIPTOR_INVALID`, `FORBIDDEN` (the credentials are not this domain's executor),
 * `UNAVAILABLE` (no registry answered within `registerTimeoutMs`).
 */
export class ExecutorStartError extends Error {
  override readonly name = "ExecutorStartError";
  constructor(readonly error: WardenError) {
    super(`${error.code}: ${error.message}`);
  }
  get code(): WardenError["code"] {
    return this.error.code;
  }
}

/**
 * Starts a domain's executor: registers its descriptors, then consumes the domain's allowed and
 * granted calls on two durable stages shared by every copy of this executor (run as many copies
 * as you like: a call runs once). Before running a call it re-checks the descriptor and args
 * hashes, the policy decision and, for approved calls, the grant's signature against
 * `approverKeys`; a refused call ends `rejected` (`GRANT_INVALID`, `DESCRIPTOR_CHANGED`, …). A
 * handler's throw, timeout or oversized output fails that call only.
 *
 * @throws {@link ExecutorStartError} when the registry refuses or cannot be reached; an `Error`
 *   for a bug in the options (an invalid domain, no tools, a tool of another domain, a name twice).
 * @example
 * ```ts
 * const config = loadBusConfig(process.env); // NATS_CREDS: the billing executor's credentials
 * const bus = await connectBus(config, "billing-executor");
 * const log = createLogger("billing", config.LOG_LEVEL);
 * const executor = await startExecutor({
 *   bus,
 *   log,
 *   domain: "billing",
 *   tools: [lookup],
 *   approverKeys: loadApproverKeys(process.env), // WARDEN_APPROVER_PUBLIC_KEYS(_FILE)
 * });
 * stopOnSignals(log, executor, bus); // SIGTERM: stop taking calls, finish running ones, close
 * ```
 */
/**
 * Counted from this process's reconnect, a claimant cut off by the same outage needs: the
 * server's JetStream to come back (~2 s after it accepts connections), its own reconnect (the
 * client tries every 2 s, so up to 2 s after ours), one result attempt (1.5 s) and a retry's
 * delay (0.5 s).
 */
const CLAIM_CATCH_UP_MS = 6_000;

export async function startExecutor(o: ExecutorOptions): Promise<Executor> {
  const tools = toolMap(o.domain, o.tools, o.secrets ?? SecretStore.none());
  const approverKeys = pinApproverKeys(o.approverKeys ?? []);
  const executorId = o.executorId ?? `${o.domain}-${newId()}`;
  if (!isSafeToken(executorId)) throw new Error(`executorId ${JSON.stringify(executorId)} is not a safe subject token`);
  const log = o.log.child({ executorId, domain: o.domain });
  if (approverKeys.size === 0) {
    log.warn("no approver key is pinned (approverKeys, WARDEN_APPROVER_PUBLIC_KEYS): every granted call will be refused");
  } else {
    log.info({ approverKeyIds: approverKeys.keyIds }, "approver keys pinned");
  }

  // live from the start: a call made as this executor comes up is not refused as having none
  const serverClock = createServerClock();
  const busSteadiness = watchBusSteadiness(o.bus);
  const heartbeat = await startHeartbeat(o.bus, log, o.domain, executorId, serverClock, o.heartbeatIntervalMs);
  const registered = await registerTools({
    bus: o.bus,
    log,
    tools: [...tools.values()],
    initialStatus: o.initialStatus ?? "enabled",
    timeoutMs: o.registerTimeoutMs ?? 30_000,
  });
  if (!registered.ok) {
    heartbeat.stop();
    throw new ExecutorStartError(registered.error);
  }
  log.info({ tools: [...tools.keys()] }, "tools registered");

  const stopping = new AbortController();
  const deps: ExecutorDeps = {
    bus: o.bus,
    executorId,
    tools,
    artifacts: new ArtifactWriter(o.bus),
    approverKeys,
    stopping: stopping.signal,
    claimGraceMs: o.claimGraceMs ?? 2_000,
    busSteadiness,
    claimCatchUpMs: o.claimCatchUpMs ?? CLAIM_CATCH_UP_MS,
    serverClock,
    secrets: o.secrets ?? SecretStore.none(),
    runningCalls: new Set(),
  };
  const common = { bus: o.bus, concurrency: o.concurrency ?? 64, ...(o.ackWaitMs === undefined ? {} : { ackWaitMs: o.ackWaitMs }) };
  /** A stage of the domain's authorisations of one type; a call whose retries run out gets its outcome from handleExhausted. */
  const authorisationStage = <T extends "ToolPolicyChecked" | "ApprovalGranted">(stage: string, spec: Pick<StageSpec<T>, "eventType" | "accept" | "handle"> & { eventType: T }) =>
    runStage<T>({
      ...common,
      log: log.child({ stage }),
      durable: consumerName(stage, o.domain),
      filterSubject: stageFilterSubject(spec.eventType, o.domain),
      ...spec,
      onExhausted: handleExhausted(deps),
    });
  const runners: StageRunner[] = [];
  try {
    runners.push(await authorisationStage("executor-allowed", { eventType: "ToolPolicyChecked", accept: acceptDecision("allow"), handle: handleToolPolicyChecked(deps) }));
    runners.push(await authorisationStage("executor-granted", { eventType: "ApprovalGranted", handle: handleApprovalGranted(deps) }));
  } catch (err) {
    heartbeat.stop();
    await Promise.allSettled(runners.map((r) => r.stop()));
    throw err;
  }
  // dry runs for approval cards, only when a tool offers one
  const previews = [...tools.values()].some((t) => t.preparePreview !== undefined)
    ? startPreviewResponder({ bus: o.bus, log: log.child({ stage: "executor-preview" }), domain: o.domain, executorId, tools, secrets: deps.secrets })
    : undefined;
  const discovery = announceService(o.bus, log, { name: "warden-executor", description: `executor of domain ${o.domain}`, metadata: { domain: o.domain, executorId, tools: [...tools.keys()].join(",") } });
  log.info("executor started");

  let stopped: Promise<void> | undefined;
  return {
    executorId,
    domain: o.domain,
    registered: registered.value,
    stop() {
      stopped ??= (async () => {
        stopping.abort();
        heartbeat.stop();
        await discovery.stop();
        await previews?.drain();
        await Promise.all(runners.map((r) => r.stop()));
        log.info("executor stopped");
      })();
      return stopped;
    },
  };
}

function toolMap(domain: string, list: readonly ExecutableTool[], secrets: SecretStore): Map<string, ExecutableTool> {
  if (!DomainSchema.safeParse(domain).success || !isSafeToken(domain)) throw new Error(`domain ${JSON.stringify(domain)} is not a valid domain`);
  if (list.length === 0) throw new Error(`the ${domain} executor has no tools`);
  const tools = new Map<string, ExecutableTool>();
  for (const t of list) {
    if (t.domain !== domain) throw new Error(`tool ${t.descriptor.name} is not in domain ${domain}`);
    if (tools.has(t.descriptor.name)) throw new Error(`tool ${t.descriptor.name} is given twice; run one version per executor`);
    // the descriptor tells the model and the approver on whose behalf the tool acts: it must not say "service" wrongly
    const perCaller = (t.descriptor.secrets ?? []).find((s) => secrets.bindingOf(s) === "principal");
    if (perCaller !== undefined && t.descriptor.actsAs !== "caller") {
      throw new Error(`tool ${t.descriptor.name} uses secret ${perCaller}, which is bound to the principal: declare actsAs: "caller" in its descriptor`);
    }
    tools.set(t.descriptor.name, t);
  }
  return tools;
}
