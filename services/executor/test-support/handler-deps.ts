import type { Bus } from "@warden/bus";
import { pinApproverKeys } from "../src/approver-keys.js";
import { ArtifactWriter } from "../src/artifacts.js";
import { watchBusSteadiness } from "../src/bus-steadiness.js";
import type { ExecutableTool } from "../src/define-tool.js";
import type { ExecutorDeps } from "../src/executor-deps.js";
import { SecretStore } from "../src/secret-store.js";
import { createServerClock } from "../src/server-clock.js";

/**
 * What `startExecutor` gives its stage handlers, for a test that calls one handler itself: `tools`
 * served as `executorId` on `bus`, with no approver key and no secrets.
 */
export function handlerDeps(bus: Bus, o: { executorId: string; tools: readonly ExecutableTool[]; claimGraceMs: number }): ExecutorDeps {
  return {
    bus,
    executorId: o.executorId,
    tools: new Map(o.tools.map((t) => [t.descriptor.name, t])),
    artifacts: new ArtifactWriter(bus),
    approverKeys: pinApproverKeys([]),
    stopping: new AbortController().signal,
    secrets: SecretStore.none(),
    claimGraceMs: o.claimGraceMs,
    serverClock: createServerClock(),
    busSteadiness: watchBusSteadiness(bus),
    claimCatchUpMs: 6_000,
    runningCalls: new Set(),
  };
}
