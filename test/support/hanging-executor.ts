import { fileURLToPath } from "node:url";
import { connectBus, loadBusConfig, silentLogger } from "@warden/bus";
import { defineTool, loadApproverKeys, startExecutor, type ExecutableTool } from "@warden/executor";
import { z } from "zod";

/**
 * A run-once write whose first run never ends: an executor process running it can be killed
 * mid-run, leaving a claim without a result (a crash, invariant 6). Run this file with node to
 * get such a process; `node test/support/hanging-executor.ts` prints "ready" once registered. It
 * connects like any executor process: NATS_URL and NATS_CREDS (an executor identity of domain
 * crashy), approver keys from WARDEN_APPROVER_PUBLIC_KEYS.
 */
export function hangingTool(hang: boolean): ExecutableTool {
  return defineTool({
    name: "crashy.send_once",
    version: "1.0.0",
    title: "A write that hangs",
    description: "Use when testing what a crash in the middle of a run leaves behind.",
    grade: "write",
    idempotent: false,
    timeoutMs: 1_000,
    input: z.strictObject({ n: z.int() }),
    handler: async ({ n }) => {
      if (hang) await new Promise(() => undefined);
      return { n };
    },
  });
}

export const HANGING_EXECUTOR_ACK_WAIT_MS = 1_000;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const bus = await connectBus(loadBusConfig(process.env), "hanging-executor");
  await startExecutor({
    bus,
    log: silentLogger(),
    domain: "crashy",
    tools: [hangingTool(true)],
    executorId: "doomed",
    ackWaitMs: HANGING_EXECUTOR_ACK_WAIT_MS,
    approverKeys: loadApproverKeys(process.env),
  });
  process.stdout.write("ready\n");
}
