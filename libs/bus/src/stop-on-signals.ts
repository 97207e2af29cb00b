import type { Bus } from "./bus.js";
import type { Logger } from "./logger.js";

/**
 * The end of every service's main.ts: on SIGTERM or SIGINT stop the service (it drains its
 * consumers), close the connection, and exit 0 — or 1 when stopping failed. A second signal is ignored.
 */
export function stopOnSignals(log: Logger, service: { stop(): Promise<void> }, bus: Bus): void {
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "shutting down");
    service
      .stop()
      .then(() => bus.close())
      .then(
        () => process.exit(0),
        (err: unknown) => {
          log.error({ err }, "shutdown failed");
          process.exit(1);
        },
      );
  };
  process.once("SIGTERM", () => shutdown("SIGTERM"));
  process.once("SIGINT", () => shutdown("SIGINT"));
}
