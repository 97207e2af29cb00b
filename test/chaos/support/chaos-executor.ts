import { appendFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { connectBus, createLogger, ensureTopology, loadBusConfig, stopOnSignals } from "@warden/bus";
import { defineTool, loadApproverKeys, startExecutor, type ExecutableTool } from "@warden/executor";
import { z } from "zod";

/**
 * The chaos suite's domain executor, run as its own process (`node chaos-executor.ts`; it imports
 * only packages so Node runs it without a build). Its tools are run-once (not idempotent): each
 * run appends one line `<callId> <executorId>` to CHAOS_EFFECTS_FILE after its work, so a test can
 * see a side effect that happened twice. Before the work it appends `start <executorId> <callId>`
 * to CHAOS_MARKS_FILE, so a test can freeze it mid-run.
 */
export const CHAOS_DOMAIN = "chaos";
export const WRITE_TOOL = "chaos.write";
export const SEND_TOOL = "chaos.send";

export interface ChaosToolOptions {
  readonly effectsFile: string;
  readonly marksFile: string;
  readonly executorId: string;
  /** Part of the descriptor: every copy must be given the same. */
  readonly timeoutMs: number;
}

const input = z.object({
  n: z.int(),
  /** How long the run works before its side effect. */
  delayMs: z.int().min(0).max(60_000).optional(),
  tag: z.string().max(200).optional(),
});

export function chaosTools(o: ChaosToolOptions): ExecutableTool[] {
  const handler = async ({ n, delayMs }: z.infer<typeof input>, ctx: { callId: string; signal: AbortSignal }) => {
    appendFileSync(o.marksFile, `start ${o.executorId} ${ctx.callId}\n`);
    if (delayMs !== undefined && delayMs > 0) {
      await new Promise<void>((resolve, reject) => {
        const t = setTimeout(resolve, delayMs);
        ctx.signal.addEventListener("abort", () => {
          clearTimeout(t);
          reject(new Error("aborted before its side effect"));
        });
      });
    }
    // one short O_APPEND write per run: lines from two executor copies never interleave
    appendFileSync(o.effectsFile, `${ctx.callId} ${o.executorId}\n`);
    return { n };
  };
  return [
    defineTool({
      name: WRITE_TOOL,
      version: "1.0.0",
      title: "Record a write",
      description: "Use when the chaos suite needs a change that must happen at most once per call.",
      grade: "write",
      idempotent: false,
      timeoutMs: o.timeoutMs,
      input,
      handler,
    }),
    defineTool({
      name: SEND_TOOL,
      version: "1.0.0",
      title: "Send a message",
      description: "Use when the chaos suite needs a send that a person approves and that must happen at most once.",
      grade: "send",
      idempotent: false,
      timeoutMs: o.timeoutMs,
      input,
      handler,
    }),
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const env = process.env;
  const required = (name: string) => {
    const v = env[name];
    if (v === undefined || v === "") throw new Error(`chaos-executor needs ${name}`);
    return v;
  };
  const executorId = required("CHAOS_EXECUTOR_ID");
  const config = loadBusConfig(env);
  const log = createLogger(`chaos-executor-${executorId}`, config.LOG_LEVEL);
  const bus = await connectBus(config, `chaos-executor-${executorId}`);
  await ensureTopology(bus);
  const executor = await startExecutor({
    bus,
    log,
    domain: CHAOS_DOMAIN,
    tools: chaosTools({
      effectsFile: required("CHAOS_EFFECTS_FILE"),
      marksFile: required("CHAOS_MARKS_FILE"),
      executorId,
      timeoutMs: Number(required("CHAOS_TOOL_TIMEOUT_MS")),
    }),
    executorId,
    ackWaitMs: Number(env["CHAOS_ACK_WAIT_MS"] ?? 30_000),
    approverKeys: loadApproverKeys(env),
  });
  stopOnSignals(log, executor, bus);
}
