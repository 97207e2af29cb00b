#!/usr/bin/env node
import { connectBus, createLogger, ensureTopology, loadBusConfig, stopOnSignals } from "@warden/bus";
import { defineTool, loadApproverKeys, startExecutor } from "@warden/executor";
import { z } from "zod";

/** The bench's domain: one read tool that answers at once, so the numbers measure Warden. */
const echo = defineTool({
  name: "bench.echo",
  version: "1.0.0",
  title: "Echo",
  description: "Use when measuring Warden itself: returns its input unchanged.",
  grade: "read",
  idempotent: true,
  input: z.object({ n: z.int(), pad: z.string().optional() }),
  handler: async (args) => args,
});

const config = loadBusConfig(process.env);
const log = createLogger("bench-executor", config.LOG_LEVEL);
const bus = await connectBus(config, "bench-executor");
await ensureTopology(bus);
const executor = await startExecutor({
  bus,
  log,
  domain: "bench",
  tools: [echo],
  concurrency: Number(process.env["BENCH_CONCURRENCY"] ?? 128),
  approverKeys: loadApproverKeys(process.env),
});
log.info("bench executor ready");
stopOnSignals(log, executor, bus);
