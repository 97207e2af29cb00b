import type { Bus } from "@warden/bus";
import { createAgentClient } from "@warden/sdk";
import { summarize } from "./stats.js";

/**
 * What an agent sees: `call()` from the SDK on a clients-account connection, through the
 * Warden account's exports (the request, then the registry's read of the call), closed loop.
 */
export async function agentSdkRate(bus: Bus, principal: string, workers: number, seconds: number) {
  const client = createAgentClient({ bus, principal, mode: "llm", timeoutMs: 10_000 });
  const until = performance.now() + seconds * 1000;
  const latencies: number[] = [];
  let failed = 0;
  const worker = async () => {
    for (let n = 0; performance.now() < until; n++) {
      const t0 = performance.now();
      const r = await client.call("bench.echo", { n });
      if (r.ok) latencies.push(performance.now() - t0);
      else failed++;
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: workers }, worker));
  const elapsed = (performance.now() - t0) / 1000;
  await client.close();
  return { rate: latencies.length / elapsed, failed, ...summarize(latencies) };
}
