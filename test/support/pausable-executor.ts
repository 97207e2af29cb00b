import { appendFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { connectBus, loadBusConfig, silentLogger } from "@warden/bus";
import { defineTool, loadApproverKeys, startExecutor } from "@warden/executor";
import { z } from "zod";

/**
 * A run-once write that takes a moment and leaves a mark per run (a line with the call id in
 * PAUSABLE_SIDE_EFFECTS): an executor process running it can be frozen (SIGSTOP) mid-run and
 * resumed, and the marks tell how often each call really ran. `node test/support/pausable-executor.ts`
 * prints "ready" once registered; it connects like any executor process (NATS_URL, NATS_CREDS of an
 * executor identity of domain pausy, WARDEN_APPROVER_PUBLIC_KEYS).
 */
export const pausableTool = (sideEffects: string, runMs: number) =>
  defineTool({
    name: "pausy.send_note",
    version: "1.0.0",
    title: "Leave a note",
    description: "Use when testing what a frozen executor does when it wakes up.",
    grade: "write",
    idempotent: false,
    timeoutMs: 3_000,
    input: z.strictObject({ n: z.int() }),
    handler: async ({ n }, ctx) => {
      await new Promise((r) => setTimeout(r, runMs));
      appendFileSync(sideEffects, `${ctx.callId}\n`);
      return { n };
    },
  });

// longer than 1 s: the frozen process's own pull requests (5 s expiry) can take a few redeliveries
// before they lapse, and each costs one ack wait of the call's five deliveries
export const PAUSABLE_EXECUTOR_ACK_WAIT_MS = 2_500;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const bus = await connectBus(loadBusConfig(process.env), "pausable-executor");
  await startExecutor({
    bus,
    log: silentLogger(),
    domain: "pausy",
    tools: [pausableTool(process.env["PAUSABLE_SIDE_EFFECTS"] ?? "/dev/null", 1_000)],
    executorId: "frozen",
    ackWaitMs: PAUSABLE_EXECUTOR_ACK_WAIT_MS,
    claimGraceMs: 200,
    approverKeys: loadApproverKeys(process.env),
  });
  process.stdout.write("ready\n");
}
