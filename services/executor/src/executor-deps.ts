import type { Bus } from "@warden/bus";
import type { PinnedApproverKeys } from "./approver-keys.js";
import type { ArtifactWriter } from "./artifacts.js";
import type { ExecutableTool } from "./define-tool.js";
import type { SecretStore } from "./secret-store.js";
import type { BusSteadiness } from "./bus-steadiness.js";
import type { ServerClock } from "./server-clock.js";

/** What the executor's stage handlers share. */
export interface ExecutorDeps {
  readonly bus: Bus;
  readonly executorId: string;
  /** By tool name; one version per name in one executor. */
  readonly tools: ReadonlyMap<string, ExecutableTool>;
  readonly artifacts: ArtifactWriter;
  /** The approver keys pinned at provisioning: grants are verified against these only. */
  readonly approverKeys: PinnedApproverKeys;
  /** Aborted when the executor stops, to cut short a wait on someone else's claim. */
  readonly stopping: AbortSignal;
  /** How long past a claim's deadline its claimant may still be writing the result. */
  readonly claimGraceMs: number;
  /** How long the bus has worked without a fault here, and how long a claimant gets to catch up after one. */
  readonly busSteadiness: BusSteadiness;
  readonly claimCatchUpMs: number;
  /** The server's time, which another executor's claim is judged on (its deadline counts from when the server stored it). */
  readonly serverClock: ServerClock;
  /** Where `ctx.secrets` reads from. */
  readonly secrets: SecretStore;
  /**
   * The calls this process is running or still recording the result of: a redelivery of such a
   * call's message (after a server outage, say) waits for that run instead of declaring its outcome
   * unknown once the claim's deadline has passed.
   */
  readonly runningCalls: Set<string>;
}
