#!/usr/bin/env node
import { connectBus, createLogger, ensureTopology, loadBusConfig, stopOnSignals } from "@warden/bus";
import { defineTool, loadApproverKeys, startExecutor } from "@warden/executor";
import { z } from "zod";

/** The bench's domain: tools that answer at once, so the numbers measure Warden. */
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

/** The same answer as a write: a model's write waits for a person (the approval round trip). */
const echoWrite = defineTool({
  name: "bench.write",
  version: "1.0.0",
  title: "Echo (write)",
  description: "Use when measuring an approval's round trip: returns its input unchanged once a person approves.",
  grade: "write",
  idempotent: true,
  input: z.object({ n: z.int() }),
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
  tools: [echo, echoWrite],
  concurrency: Number(process.env["BENCH_CONCURRENCY"] ?? 128),
  approverKeys: loadApproverKeys(process.env),
});
log.info("bench executor ready");
stopOnSignals(log, executor, bus);
