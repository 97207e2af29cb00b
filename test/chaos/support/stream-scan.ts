import type { Bus } from "@warden/bus";
import { CALLS_SUBJECTS, STREAM_CALLS } from "@warden/contracts";

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
}

/**
 * An independent reader of WARDEN_CALLS for the end checks: it trusts no Warden decoder (those
 * are under test), takes the call id from the subject and the event type from the body, and
 * reads on from where it stopped each time it is advanced.
 */
export class StreamScan {
  readonly calls = new Map<string, CallTrace>();
  lastSeq = 0;

  constructor(private readonly bus: Bus) {}

  /** Reads every message stored since the last call; returns how many were read. */
  async advance(): Promise<number> {
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
        read++;
        if (m.seq >= toSeq) break;
      }
    } finally {
      void messages.close().catch(() => undefined);
    }
    this.lastSeq = toSeq;
    return read;
  }

  private record(seq: number, subject: string, data: Uint8Array, storedAt: number): void {
    // warden.call.<domain>.<callId>.<slot>[.<suffix>]
    const parts = subject.split(".");
    const callId = parts[3];
    if (callId === undefined) return;
    let trace = this.calls.get(callId);
    if (trace === undefined) {
      trace = { callId, terminals: [], types: [] };
      this.calls.set(callId, trace);
    }
    if (parts[4] === "ToolCallRequested") trace.requestSeq ??= seq;
    const type = bodyType(data);
    trace.types.push(type ?? "?");
    if (type !== undefined && TERMINAL.has(type)) {
      trace.terminals.push(type);
      trace.endedAt ??= storedAt;
    }
  }

  /** Calls with a request stored after `afterSeq` (every call by default). */
  requested(afterSeq = 0): CallTrace[] {
    return [...this.calls.values()].filter((c) => c.requestSeq !== undefined && c.requestSeq > afterSeq);
  }
}

/** The body's `type`, whatever else is in it; nothing for a body that is not a JSON object. */
function bodyType(data: Uint8Array): string | undefined {
  try {
    const v: unknown = JSON.parse(Buffer.from(data).toString("utf8"));
    const t = typeof v === "object" && v !== null ? (v as { type?: unknown }).type : undefined;
    return typeof t === "string" ? t : undefined;
  } catch {
    return undefined;
  }
}
