import type { Logger } from "@warden/bus";
import type { ExecutableTool } from "@warden/executor";
import type { ExecutorSlot } from "./domain-executor-slot.js";

/**
 * Refreshes of a domain's tools, one at a time: each lists the tools again and, when they
 * changed, restarts the executor with them. The queue never rejects, so a failed refresh never
 * blocks the next one.
 */
export class ToolRefreshQueue {
  private queue: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly log: Logger,
    private readonly slot: ExecutorSlot,
    private readonly listTools: () => Promise<ExecutableTool[]>,
  ) {}

  refresh(): Promise<void> {
    this.queue = this.queue
      .then(() => this.restartIfChanged())
      .catch((err: unknown) => {
        // logged here so that the queue never rejects: the next refresh must still run
        this.log.error({ err }, "restarting the executor with changed mcp tools failed");
      });
    return this.queue;
  }

  /** No refresh starts after this; resolves when the one under way is done. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.queue;
  }

  private async restartIfChanged(): Promise<void> {
    if (this.stopped) return;
    let next: ExecutableTool[];
    try {
      next = await this.listTools();
    } catch (err) {
      this.log.error({ err }, "mcp rediscovery failed, keeping the running tools");
      return;
    }
    if (this.slot.runs(next) || this.stopped) return;
    this.log.info({ tools: next.map((t) => `${t.descriptor.name}@${t.descriptor.version}`) }, "mcp tools changed, restarting the executor");
    await this.slot.stop();
    await this.slot.start(next);
  }
}
