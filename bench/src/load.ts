import type { PipelineClient } from "./pipeline-client.js";
import { summarize } from "./stats.js";

/** Closed loop: `workers` callers each wait for their call before sending the next. */
export async function peakRate(client: PipelineClient, workers: number, seconds: number): Promise<number> {
  const until = performance.now() + seconds * 1000;
  let done = 0;
  const worker = async () => {
    while (performance.now() < until) {
      const r = await client.call(done, "bench-peak");
      if (r.ok) done++;
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: workers }, worker));
  return done / ((performance.now() - t0) / 1000);
}

/**
 * Open loop at a fixed arrival rate; latency runs from each call's scheduled arrival to its
 * terminal event, so a stall is not hidden by callers slowing down.
 */
export async function fixedRate(client: PipelineClient, rate: number, seconds: number) {
  const tickMs = 1;
  const total = Math.round(rate * seconds);
  const latencies: number[] = [];
  const pending: Promise<void>[] = [];
  const t0 = performance.now();
  let sent = 0;
  let failed = 0;
  while (sent < total) {
    // call k is due at k / rate seconds
    const due = Math.min(total, Math.floor(((performance.now() - t0) / 1000) * rate) + 1);
    while (sent < due) {
      const scheduled = t0 + (sent / rate) * 1000;
      sent++;
      pending.push(
        client.send(sent, "bench-rate").then(async ({ finished }) => {
          const ok = await finished;
          if (ok) latencies.push(performance.now() - scheduled);
          else failed++;
        }),
      );
    }
    await new Promise((r) => setTimeout(r, tickMs));
  }
  await Promise.all(pending);
  const elapsed = (performance.now() - t0) / 1000;
  return { ...summarize(latencies), failed, achievedRate: latencies.length / elapsed };
}
