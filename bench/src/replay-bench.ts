import { appendEvent, silentLogger, type Bus } from "@warden/bus";
import { newId } from "@warden/contracts/events";
import { STREAM_CALLS } from "@warden/contracts/subjects";
import { buildTrace } from "@warden/projections";
import { SYNTHETIC_OUTCOMES, syntheticCall } from "@warden/testing";
import { openCursor, readCallEvents, readStream, replayStream, startProjectorService } from "@warden/projector";
import { summarize } from "./stats.js";

export interface ReplayBenchOptions {
  /** The stream is topped up with synthetic calls to at least this many events. */
  readonly minEvents: number;
  /** How many single-call traces to time. */
  readonly traces: number;
  /** How long the live projector may take to catch up before its rate is measured. */
  readonly projectorSeconds: number;
}

/**
 * Replay and audit speed over the stream the bench left behind (topped up to `minEvents`): a full
 * replay into every read model, the raw read it rests on, the live projector catching up from
 * sequence 1, and the latency of one call's trace (which reads only that call's prefix).
 * Run it with the services stopped: synthetic calls must not be picked up by them.
 */
export async function replayBench(bus: Bus, o: ReplayBenchOptions): Promise<[string, string][]> {
  const before = (await bus.jsm.streams.info(STREAM_CALLS)).state.messages;
  const added = await topUp(bus, o.minEvents - before);
  const total = (await bus.jsm.streams.info(STREAM_CALLS)).state.last_seq;

  let t0 = performance.now();
  const raw = await readStream(bus, {}, () => undefined);
  const rawRate = raw.read / ((performance.now() - t0) / 1000);

  const replay = await replayStream(bus);
  const replayRate = replay.read / (replay.elapsedMs / 1000);
  const callIds = [...replay.maps.calls.keys()];

  const traceLatency = async (samples: number, among: readonly string[]) => {
    const latencies: number[] = [];
    for (let i = 0; i < samples && among.length > 0; i++) {
      const callId = among[Math.floor(Math.random() * among.length)]!;
      const t = performance.now();
      const found = await readCallEvents(bus, callId);
      buildTrace(found?.entries ?? []);
      latencies.push(performance.now() - t);
    }
    return summarize(latencies);
  };
  // before any projection: the call's subjects are listed, then its prefix read
  const scanned = await traceLatency(Math.max(10, Math.round(o.traces / 10)), callIds);

  // the live projector from a fresh start: KV writes with compare-and-set, in stream order
  const projector = await startProjectorService({ bus, log: silentLogger(), batchSize: 1_024, leaseTtlMs: 1_000 });
  const cursor = await openCursor(bus);
  t0 = performance.now();
  const deadline = t0 + o.projectorSeconds * 1000;
  let at = 0;
  while (performance.now() < deadline && (at = await cursor.read()) < total) await new Promise((r) => setTimeout(r, 100));
  const projectorRate = at / ((performance.now() - t0) / 1000);
  await projector.stop();

  // with the projected call model (calls the projector reached): its events fetched by sequence
  const projected = callIds.filter((id) => (replay.maps.calls.get(id)?.seq ?? Infinity) <= at);
  const trace = await traceLatency(o.traces, projected);

  return [
    [`stream for replay: events (${added} synthetic added)`, String(total)],
    ["raw ordered read of the stream (events/s)", rawRate.toFixed(0)],
    ["replay into every read model, in memory (events/s)", replayRate.toFixed(0)],
    [`  models rebuilt: calls / approvals / budgets`, `${replay.maps.calls.size} / ${replay.maps.approvals.size} / ${replay.maps.budgets.size}`],
    [`live projector from seq 1, KV compare-and-set (events/s${at < total ? `, ${at} of ${total} in ${o.projectorSeconds}s` : ""})`, projectorRate.toFixed(0)],
    [`trace of one call in ${total} events: p50 / p99 (ms, ${trace.n} calls)`, `${trace.p50.toFixed(2)} / ${trace.p99.toFixed(2)}`],
    [`  the same before any projection, by subject scan: p50 / p99 (ms, ${scanned.n} calls)`, `${scanned.p50.toFixed(2)} / ${scanned.p99.toFixed(2)}`],
  ];
}

/** Appends synthetic calls (every outcome) until `missing` more events are on the stream. */
async function topUp(bus: Bus, missing: number): Promise<number> {
  let added = 0;
  const window: Promise<unknown>[] = [];
  for (let i = 0; added < missing; i++) {
    const events = syntheticCall({ callId: newId(), outcome: SYNTHETIC_OUTCOMES[i % SYNTHETIC_OUTCOMES.length]!, runId: `bench-run-${i % 100}`, tool: i % 3 === 0 ? "customer.message" : "kb.search", at: new Date() });
    // a call's events go in order; calls overlap
    window.push(
      (async () => {
        for (const e of events) await appendEvent(bus, e);
      })(),
    );
    added += events.length;
    if (window.length >= 256) await Promise.all(window.splice(0));
  }
  await Promise.all(window);
  return added;
}
