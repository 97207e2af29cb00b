import type { Subscription } from "@nats-io/transport-node";
import { appendEvent, decodeJson, isNoAnswer, type Bus } from "@warden/bus";
import { newId, type ToolCallRequested } from "@warden/contracts/events";

const APPEND_ATTEMPTS = 5;

/**
 * Publishes `bench.echo` requests in llm mode and resolves each when its terminal event
 * arrives; one wildcard subscription serves every call, so the client is not the bottleneck.
 */
export class PipelineClient {
  private readonly waiting = new Map<string, (ok: boolean) => void>();
  private readonly subs: Subscription[] = [];
  completed = 0;
  failed = 0;
  /** Appends asked again after their ack timed out. */
  appendRetries = 0;
  /** When set, records when each event of a call was seen, relative to its request. */
  hops: Map<string, Map<string, number>> | undefined;
  private readonly sentAt = new Map<string, number>();

  constructor(private readonly bus: Bus) {
    for (const subject of ["warden.call.bench.*.Outcome", "warden.call.bench.*.ToolCallRejected"]) {
      this.subs.push(
        bus.nc.subscribe(subject, {
          callback: (_err, msg) => {
            const callId = msg.subject.split(".")[3] ?? "";
            const done = this.waiting.get(callId);
            if (!done) return;
            this.waiting.delete(callId);
            const decoded = decodeJson(msg.data);
            const ok = decoded.ok && (decoded.value as { type?: string; data?: { ok?: boolean } }).data?.ok === true && (decoded.value as { type?: string }).type === "ToolCallFinished";
            if (ok) this.completed++;
            else this.failed++;
            done(ok);
          },
        }),
      );
    }
  }

  /** Records the arrival of every event of bench calls (per-hop latency). */
  traceHops(): void {
    this.hops = new Map();
    this.subs.push(
      this.bus.nc.subscribe("warden.call.bench.>", {
        callback: (_err, msg) => {
          const [, , , callId = "", type = ""] = msg.subject.split(".");
          const t0 = this.sentAt.get(callId);
          if (t0 === undefined || !this.hops) return;
          let m = this.hops.get(callId);
          if (!m) this.hops.set(callId, (m = new Map()));
          m.set(type, performance.now() - t0);
        },
      }),
    );
  }

  get inFlight(): number {
    return this.waiting.size;
  }

  /** Resolves with the latency in ms once the call finishes. */
  async call(n: number, runId: string): Promise<{ ok: boolean; ms: number }> {
    const t0 = performance.now();
    const { finished } = await this.send(n, runId);
    const ok = await finished;
    return { ok, ms: performance.now() - t0 };
  }

  /** Appends the request; the returned promise settles when the call ends. */
  async send(n: number, runId: string): Promise<{ finished: Promise<boolean> }> {
    const callId = newId();
    const finished = new Promise<boolean>((resolve) => this.waiting.set(callId, resolve));
    if (this.hops) this.sentAt.set(callId, performance.now());
    const event: ToolCallRequested = {
      v: 1,
      type: "ToolCallRequested",
      eventId: newId(),
      callId,
      domain: "bench",
      tool: "bench.echo",
      principal: "bench-agent",
      mode: "llm",
      ts: new Date().toISOString(),
      causationId: null,
      causeHash: null,
      correlationId: runId,
      data: { args: { n }, scope: null, flags: {} },
    };
    // a publish ack that does not come in time (a backlog of thousands at once on a busy box) is
    // asked again: the same event is stored once (appendEvent reads back what the subject holds)
    for (let attempt = 1; ; attempt++) {
      try {
        await appendEvent(this.bus, event);
        return { finished };
      } catch (err) {
        if (!isNoAnswer(err) || attempt >= APPEND_ATTEMPTS) throw err;
        this.appendRetries++;
      }
    }
  }

  close(): void {
    for (const s of this.subs) s.unsubscribe();
  }
}
