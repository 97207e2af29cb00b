import type { WardenEvent } from "@warden/contracts/events";

/** How a stage settled one event it handled. */
export type StageSettlement = "ack" | "retry" | "poison" | "exhausted";

/**
 * What a process wants to know of its bus work, for metrics: each handled stage message, each
 * dead letter, each append, each durable it consumes. Every member is optional and called
 * synchronously on the hot path, so an observer only counts (prom-client counters do).
 */
export interface BusObserver {
  stageHandled?(o: { readonly stage: string; readonly eventType: string; readonly tool: string; readonly outcome: StageSettlement; readonly seconds: number }): void;
  deadLettered?(o: { readonly stage: string; readonly reason: string }): void;
  appended?(event: WardenEvent, status: "written" | "already_written"): void;
  stageStarted?(durable: string): void;
}

let current: BusObserver = {};

/**
 * Sets the process's bus observer, as OpenTelemetry's global provider is set: once, by the
 * process entry (`runServiceProcess`, `warden up`), so every stage and append of every service in
 * the process is seen without passing it through each service's deps. Returns the undo.
 */
export function observeBus(observer: BusObserver): () => void {
  const before = current;
  current = observer;
  return () => {
    if (current === observer) current = before;
  };
}

/** The observer in force (one that observes nothing by default). */
export function busObserver(): BusObserver {
  return current;
}
