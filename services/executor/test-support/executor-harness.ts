import type { Bus } from "@warden/bus";
import { serveFakeRegistry, startTestNats, useStarted, type TestNats } from "@warden/testing";
import { startExecutor, type Executor, type ExecutorOptions } from "../src/start-executor.js";

export interface ExecutorHarness {
  readonly nats: TestNats;
  /** An admin connection: it sets up and inspects, and acts as the executor only where a test passes it as one. */
  readonly bus: Bus;
  /** Starts an executor; the harness stops it after the block's tests (stopping it earlier is fine). */
  start(options: ExecutorOptions): Promise<Executor>;
}

export interface RunningExecutorHarness extends ExecutorHarness {
  /** The executor started before the block's tests. */
  readonly executor: Executor;
}

type ExecutorOptionsOf = (nats: TestNats, bus: Bus) => ExecutorOptions | Promise<ExecutorOptions>;

/**
 * A real nats-server with the registry's stand-in answering registrations, for the `describe`
 * block this is called in: started before its tests, and stopped after them with every executor
 * `start` started. Read its fields inside tests and hooks, not while the block is declared.
 */
export function useExecutorHarness(): ExecutorHarness {
  return harness(undefined);
}

/**
 * {@link useExecutorHarness} with one executor started before the block's tests, with the options
 * `options` makes (connecting it as its own identity with `nats.connectAs`, or as the admin `bus`).
 */
export function useRunningExecutor(options: ExecutorOptionsOf): RunningExecutorHarness {
  return harness(options);
}

function harness(first: ExecutorOptionsOf | undefined): RunningExecutorHarness {
  const running = useStarted(
    "executor harness",
    async () => {
      const nats = await startTestNats();
      const bus = await nats.bus();
      const registry = await serveFakeRegistry(bus);
      const executors: Executor[] = [];
      const start = async (options: ExecutorOptions) => {
        const started = await startExecutor(options);
        executors.push(started);
        return started;
      };
      const executor = first === undefined ? undefined : await start(await first(nats, bus));
      return { nats, bus, registry, executors, start, executor };
    },
    async ({ nats, registry, executors }) => {
      await Promise.all(executors.map((e) => e.stop()));
      await registry.stop();
      await nats.stop();
    },
  );
  return {
    get nats() {
      return running.nats;
    },
    get bus() {
      return running.bus;
    },
    get executor() {
      if (running.executor === undefined) throw new Error("executor harness: no executor was started before the block's tests (useRunningExecutor starts one)");
      return running.executor;
    },
    start: (options) => running.start(options),
  };
}
