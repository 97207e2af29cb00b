import { encodeJson, type Bus, type Logger } from "@warden/bus";
import { SUBJECT_REGISTRY_CHANGED } from "@warden/contracts/subjects";
import { type RegistryChanged } from "@warden/contracts/descriptor";
import type { DescriptorCache, PolicyDocumentFollower } from "@warden/service-kit";

export interface ChangeAnnouncerDeps {
  readonly bus: Bus;
  readonly log: Logger;
  readonly cache: DescriptorCache;
  readonly policy: PolicyDocumentFollower;
  /** Changes closer together than this are announced once (a registration writes several keys). Default 50 ms. */
  readonly settleMs?: number;
}

export interface ChangeAnnouncer {
  stop(): void;
}

/**
 * Publishes `warden.registry.changed` after this copy's descriptor cache or policy document
 * changed, so clients showing a ToolView (an MCP session) ask for theirs again. Plain NATS: a
 * lost announcement is caught by the client's own periodic re-read; every copy announces, and a
 * client compares views, so duplicates cost one view read.
 */
export function announceChanges(deps: ChangeAnnouncerDeps): ChangeAnnouncer {
  const { bus, log, cache, policy } = deps;
  const settleMs = deps.settleMs ?? 50;
  const pending = new Set<RegistryChanged["change"]>();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const flush = () => {
    timer = undefined;
    if (stopped || bus.nc.isClosed()) return;
    const change = pending.has("policy") ? "policy" : "tools";
    pending.clear();
    const notice: RegistryChanged = { change, policyVersion: policy.current().version };
    try {
      bus.nc.publish(SUBJECT_REGISTRY_CHANGED, encodeJson(notice));
    } catch (err) {
      log.warn({ err }, "registry change not announced");
    }
  };
  const schedule = (change: RegistryChanged["change"]) => () => {
    pending.add(change);
    timer ??= setTimeout(flush, settleMs);
  };
  const offTools = cache.onChange(schedule("tools"));
  const offPolicy = policy.onChange(schedule("policy"));
  return {
    stop() {
      stopped = true;
      offTools();
      offPolicy();
      if (timer !== undefined) clearTimeout(timer);
    },
  };
}
