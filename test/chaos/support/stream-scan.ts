import type { Bus } from "@warden/bus";
import { CALLS_SUBJECTS, STREAM_CALLS } from "@warden/contracts/subjects";

/** The event types that end a call; exactly one of them per call. */
export const TERMINAL_TYPES = ["ToolCallRejected", "ApprovalDenied", "ApprovalExpired", "ToolCallFinished", "ToolCallOutcomeUnknown"] as const;
const TERMINAL = new Set<string>(TERMINAL_TYPES);

/** What the stream holds about one call, read straight from the stored messages. */
export interface CallTrace {
  readonly callId: string;
  /** Stream sequence of its request (undefined for ids seen only on other subjects). */
  requestSeq?: number;
  /** Terminal event types found in message bodies, in stream order. */
  readonly terminals: string[];
  /** When the server stored its first terminal event (ms since the epoch). */
  endedAt?: number;
  /** Every event type stored for it (the body's type, or `?` for a body that is not an event), in order. */
  readonly types: string[];
  /** Whether a ToolCallFinished of it says ok (a result that claims its side effect happened). */
  finishedOk?: boolean;
  /** The tool its request names, when the request could be read. */
  tool?: string;
  /** When the server stored its request, and its latest event (ms since the epoch). */
  requestedAt?: number;
  lastAt: number;
}

/**
 * An independent reader of WARDEN_CALLS for the end checks: it trusts no Warden decoder (those
 * are under test), takes the call id from the subject and the event type from the body, and
 * reads on from where it stopped each time it is advanced.
 */
export class StreamScan {
  readonly calls = new Map<string, CallTrace>();
  /** Per event type, the writer's `ts` minus the server's stored time (ms): a writer's clock offset. */
  readonly clockOffsets = new Map<string, number[]>();
  lastSeq = 0;

  constructor(private readonly bus: Bus) {}

  /** Reads every message stored since the last call; returns how many were read. */
  async advance(): Promise<number> {
    // right after a fault (a leader election, a restart) the server may not answer at once
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.readNew();
      } catch (err) {
        if (attempt >= 5) throw err;
        await new Promise((r) => setTimeout(r, 1_000 * attempt));
      }
    }
  }

  private async readNew(): Promise<number> {
    const info = await this.bus.jsm.streams.info(STREAM_CALLS);
    const toSeq = info.state.last_seq;
    if (toSeq <= this.lastSeq) return 0;
    const fromSeq = this.lastSeq + 1;
    // an ordered push consumer needs no durable and no pull rights; it goes when the read ends
    const consumer = await this.bus.js.consumers.getPushConsumer(STREAM_CALLS, {
      filter_subjects: CALLS_SUBJECTS,
      ...(fromSeq > 1 ? { deliver_policy: "by_start_sequence" as const, opt_start_seq: fromSeq } : { deliver_policy: "all" as const }),
    });
    const messages = await consumer.consume();
    let read = 0;
    try {
      for await (const m of messages) {
        if (m.seq > toSeq) break;
        this.record(m.seq, m.subject, m.data, m.time.getTime());
        // kept per message, so a read cut short by a fault resumes without counting anything twice
        this.lastSeq = m.seq;
        read++;
        if (m.seq >= toSeq) break;
      }
    } finally {
      void messages.close().catch(() => undefined);
    }
    return read;
  }

  private record(seq: number, subject: string, data: Uint8Array, storedAt: number): void {
    // warden.call.<domain>.<callId>.<slot>[.<suffix>]
    const parts = subject.split(".");
    const callId = parts[3];
    if (callId === undefined) return;
    let trace = this.calls.get(callId);
    if (trace === undefined) {
      trace = { callId, terminals: [], types: [], lastAt: storedAt };
      this.calls.set(callId, trace);
    }
    const body = bodyOf(data);
    if (parts[4] === "ToolCallRequested") {
      trace.requestSeq ??= seq;
      trace.requestedAt ??= storedAt;
      trace.tool ??= body?.tool;
    }
    trace.lastAt = storedAt;
    const type = body?.type;
    trace.types.push(type ?? "?");
    if (type !== undefined && body?.ts !== undefined) {
      // by type, and by type and executor copy (`ToolCallStarted@e1`): copies share event types
      for (const key of body.executorId === undefined ? [type] : [type, `${type}@${body.executorId}`]) {
        const offsets = this.clockOffsets.get(key) ?? [];
        offsets.push(body.ts - storedAt);
        this.clockOffsets.set(key, offsets);
      }
    }
    if (type === "ToolCallFinished") trace.finishedOk ??= body?.ok === true;
    if (type !== undefined && TERMINAL.has(type)) {
      trace.terminals.push(type);
      trace.endedAt ??= storedAt;
    }
  }

  /** Calls with a request stored after `afterSeq` (every call by default). */
  requested(afterSeq = 0): CallTrace[] {
    return [...this.calls.values()].filter((c) => c.requestSeq !== undefined && c.requestSeq > afterSeq);
  }

  /** The median clock offset of the writers of one event type (or `type@executorId`), in ms (undefined when none was read). */
  medianOffset(type: string): number | undefined {
    const xs = [...(this.clockOffsets.get(type) ?? [])].sort((a, b) => a - b);
    return xs.length === 0 ? undefined : xs[Math.floor(xs.length / 2)];
  }
}

/** The body's `type`, `tool`, `ts` (ms), `data.ok` and `data.executorId`, whatever else is in it; nothing for a body that is not a JSON object. */
function bodyOf(data: Uint8Array): { type?: string; tool?: string; ts?: number; ok?: boolean; executorId?: string } | undefined {
  try {
    const v: unknown = JSON.parse(Buffer.from(data).toString("utf8"));
    if (typeof v !== "object" || v === null) return undefined;
    const { type, tool, ts, data: inner } = v as { type?: unknown; tool?: unknown; ts?: unknown; data?: { ok?: unknown; executorId?: unknown } };
    const at = typeof ts === "string" ? Date.parse(ts) : NaN;
    return {
      ...(Number.isFinite(at) ? { ts: at } : {}),
      ...(typeof type === "string" ? { type } : {}),
      ...(typeof tool === "string" ? { tool } : {}),
      ...(typeof inner?.ok === "boolean" ? { ok: inner.ok } : {}),
      ...(typeof inner?.executorId === "string" ? { executorId: inner.executorId } : {}),
    };
  } catch {
    return undefined;
  }
}
