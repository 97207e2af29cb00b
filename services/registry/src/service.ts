import { runStage, type Bus, type Logger } from "@warden/bus";
import { announceService, followPolicyDocument, openExecutorLiveness, startDescriptorCache } from "@warden/service-kit";
import { BUCKET_TOOLS, consumerName, MAX_REQUEST_BYTES, MAX_REQUEST_DEPTH, stageFilterSubject } from "@warden/contracts/subjects";
import { DURABLE_REGISTRY } from "@warden/contracts/permissions";
import { ArgsValidators } from "./domain/args-validator.js";
import { handleToolCallRequested } from "./handlers/tool-call-requested.js";
import { handleUnreadableRequest } from "./handlers/unreadable-request.js";
import { announceChanges } from "./rpc/announce-changes.js";
import { serveCallReads } from "./rpc/serve-call-reads.js";
import { serveOwnCalls } from "./rpc/serve-own-calls.js";
import { serveRegistryRpc } from "./rpc/serve-registry.js";

export interface RegistryServiceDeps {
  readonly bus: Bus;
  readonly log: Logger;
  /** Requests the validation stage works on at once (default 64). */
  readonly concurrency?: number;
  /**
   * Hide from views the tools of domains with no live executor heartbeat (`no_executor`), as the
   * policy refuses their calls (WARDEN_POLICY_REQUIRE_LIVE_EXECUTOR). The process turns it on
   * (WARDEN_REGISTRY_HIDE_DOWN_DOMAINS); tests of the registry alone, with no executors, leave it off.
   * @default false
   */
  readonly hideDownDomains?: boolean;
}

export interface RegistryService {
  stop(): Promise<void>;
}

export const VALIDATE_STAGE = DURABLE_REGISTRY;

/**
 * Starts the registry: the descriptor and policy caches, the register / status / list / view
 * request-reply subjects, people's reads of their own calls, the validation stage, and the announcements that a view may have
 * changed (`warden.registry.changed`). Expects the topology to exist.
 */
export async function startRegistryService(deps: RegistryServiceDeps): Promise<RegistryService> {
  const log = deps.log;
  const bus = deps.bus;
  const tools = await bus.kvm.open(BUCKET_TOOLS);
  const cache = await startDescriptorCache(bus);
  const policy = await followPolicyDocument(bus, log);
  const validators = new ArgsValidators();
  const liveness = deps.hideDownDomains === true ? await openExecutorLiveness(bus, log) : undefined;
  const subscriptions = [...serveRegistryRpc({ bus, log, tools, cache, policy, validators, ...(liveness === undefined ? {} : { liveness }) }), serveCallReads(bus, log), serveOwnCalls(bus, log)];
  const stage = await runStage({
    bus,
    log: log.child({ stage: VALIDATE_STAGE }),
    durable: consumerName(VALIDATE_STAGE),
    eventType: "ToolCallRequested",
    filterSubject: stageFilterSubject("ToolCallRequested"),
    ...(deps.concurrency === undefined ? {} : { concurrency: deps.concurrency }),
    handle: handleToolCallRequested({ bus, cache, validators }),
    // a request it cannot read is still answered (from its subject), so its caller does not wait
    onUndecodable: handleUnreadableRequest({ bus }),
    maxBytes: MAX_REQUEST_BYTES,
    maxDepth: MAX_REQUEST_DEPTH,
  });
  // registered after the caches are loaded: what they hold at start is no change
  const announcer = announceChanges({ bus, log, cache, policy });
  log.info({ tools: cache.records().length }, "registry started");

  let stopping: Promise<void> | undefined;
  const discovery = announceService(bus, log, { name: "warden-registry", description: "descriptors, versions, lifecycle, arg validation, ToolViews" });
  return {
    stop() {
      stopping ??= (async () => {
        await discovery.stop();
        announcer.stop();
        await Promise.allSettled(subscriptions.map((s) => s.drain()));
        await stage.stop();
        cache.stop();
        policy.stop();
        log.info("registry stopped");
      })();
      return stopping;
    },
  };
}
