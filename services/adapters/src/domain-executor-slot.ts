import { startExecutor, type ExecutableTool, type Executor, type ExecutorOptions } from "@warden/executor";

/** What every executor of the domain is started with, besides its tools. */
export type SlotOptions = Omit<ExecutorOptions, "tools" | "initialStatus">;

/**
 * The one executor running a domain's tools now: started with a tool list, stopped before it is
 * started again with another one.
 */
export class ExecutorSlot {
  private executor: Executor | undefined;
  private running = new Map<string, string>();

  constructor(private readonly options: SlotOptions) {}

  /** The tools running now, name → version. */
  tools(): ReadonlyMap<string, string> {
    return this.running;
  }

  /** Whether exactly these tools, at these versions, run now. */
  runs(tools: readonly ExecutableTool[]): boolean {
    return tools.length === this.running.size && tools.every((t) => this.running.get(t.descriptor.name) === t.descriptor.version);
  }

  async start(tools: ExecutableTool[]): Promise<void> {
    if (tools.length === 0) {
      this.options.log.warn("no tools to run");
      return;
    }
    // versions the registry has not seen (an MCP server's new tools) wait for an operator
    this.executor = await startExecutor({ ...this.options, tools, initialStatus: "discovered" });
    this.running = new Map(tools.map((t) => [t.descriptor.name, t.descriptor.version]));
  }

  async stop(): Promise<void> {
    await this.executor?.stop();
    this.executor = undefined;
  }
}
