import { JetStreamApiError, type PubAck } from "@nats-io/jetstream";
import { createInbox, errors, headers, type Msg, type NatsConnection, type Subscription } from "@nats-io/transport-node";

/**
 * JetStream appends without the client's request machinery (issue 12): `js.publish` is a
 * request per append, each with its own promise, timer, random token and options copies, and an
 * append is what every stage does for every event. Here all appends of a connection share one
 * reply subscription and one deadline sweep, and each keeps its own ack: the server's PubAck,
 * or its error as the same `JetStreamApiError` the client throws (so `isRevisionConflict` and
 * `isSubjectFull` classify it), `NoRespondersError` when no stream listens, `TimeoutError` when
 * the ack does not come, `PermissionViolationError` when the server refuses the subject.
 * A wrapper of @nats-io/jetstream 3.x's publish for the hot path; everything else uses the client.
 */
export interface AppendOptions {
  readonly msgId: string;
  /** Sent as Nats-Expected-Last-Subject-Sequence (0: the subject must be empty). */
  readonly expectLastSubjectSequence?: number;
  readonly timeoutMs: number;
}

interface Pending {
  readonly subject: string;
  readonly deadline: number;
  resolve(ack: PubAck): void;
  reject(err: Error): void;
}

const SWEEP_MS = 100;
const decoder = new TextDecoder();

export class JsAppender {
  private readonly inbox: string;
  private readonly pending = new Map<string, Pending>();
  private readonly sub: Subscription;
  private next = 0;
  private sweeper: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly nc: NatsConnection) {
    // the identity's own inbox prefix: the only inbox its permissions let it subscribe to
    const prefix = (nc as unknown as { options?: { inboxPrefix?: string } }).options?.inboxPrefix;
    this.inbox = createInbox(prefix);
    this.sub = nc.subscribe(`${this.inbox}.*`, { callback: (err, m) => this.onReply(err, m) });
    void this.watchRefusals();
    void this.sub.closed.then(() => this.failAll(new errors.ClosedConnectionError()));
  }

  /** Publishes `data` on `subject` and resolves with the stream's ack; rejects as the client's `js.publish` would. */
  append(subject: string, data: Uint8Array, o: AppendOptions): Promise<PubAck> {
    const token = (this.next++).toString(36);
    const h = headers();
    h.set("Nats-Msg-Id", o.msgId);
    if (o.expectLastSubjectSequence !== undefined) h.set("Nats-Expected-Last-Subject-Sequence", String(o.expectLastSubjectSequence));
    return new Promise<PubAck>((resolve, reject) => {
      this.pending.set(token, { subject, deadline: Date.now() + o.timeoutMs, resolve, reject });
      this.sweeper ??= setInterval(() => this.sweep(), SWEEP_MS);
      try {
        this.nc.publish(subject, data, { reply: `${this.inbox}.${token}`, headers: h });
      } catch (err) {
        this.settle(token);
        reject(err as Error);
      }
    });
  }

  private onReply(err: Error | null, m: Msg): void {
    const token = m.subject.slice(this.inbox.length + 1);
    const p = this.settle(token);
    if (p === undefined) return;
    if (err !== null) return p.reject(err);
    if (m.data.length === 0 && m.headers?.code === 503) return p.reject(new errors.NoRespondersError(p.subject));
    try {
      const ack = JSON.parse(decoder.decode(m.data)) as PubAck & { error?: ConstructorParameters<typeof JetStreamApiError>[0] };
      if (ack.error !== undefined) return p.reject(new JetStreamApiError(ack.error));
      if (!ack.stream) return p.reject(new Error("invalid ack response"));
      p.resolve({ ...ack, duplicate: ack.duplicate ?? false });
    } catch (e) {
      p.reject(e as Error);
    }
  }

  private settle(token: string): Pending | undefined {
    const p = this.pending.get(token);
    if (p === undefined) return undefined;
    this.pending.delete(token);
    if (this.pending.size === 0 && this.sweeper !== undefined) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
    return p;
  }

  /** One timer for every append in flight: those past their deadline time out. */
  private sweep(): void {
    const now = Date.now();
    for (const [token, p] of this.pending) {
      if (p.deadline <= now) {
        this.settle(token);
        p.reject(new errors.TimeoutError());
      }
    }
  }

  /** A refused publish comes back as a connection error naming the subject: the first append on it fails, as the client's request does. */
  private async watchRefusals(): Promise<void> {
    for await (const s of this.nc.status()) {
      if (s.type !== "error" || !(s.error instanceof errors.PermissionViolationError)) continue;
      const refused = s.error;
      if (refused.operation === "subscription" && refused.subject === `${this.inbox}.*`) {
        this.failAll(refused);
        continue;
      }
      for (const [token, p] of this.pending) {
        if (refused.operation === "publish" && p.subject === refused.subject) {
          this.settle(token);
          p.reject(refused);
          break;
        }
      }
    }
  }

  private failAll(err: Error): void {
    for (const [token, p] of this.pending) {
      this.settle(token);
      p.reject(err);
    }
  }
}

const appenders = new WeakMap<NatsConnection, JsAppender>();

/** The connection's one appender, made on first use. */
export function appenderOf(nc: NatsConnection): JsAppender {
  let a = appenders.get(nc);
  if (a === undefined) {
    a = new JsAppender(nc);
    appenders.set(nc, a);
  }
  return a;
}
