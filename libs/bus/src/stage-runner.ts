import { AckPolicy, DeliverPolicy, type ConsumerConfig, type ConsumerMessages, type JsMsg } from "@nats-io/jetstream";
import {
  parseCallSubject,
  STREAM_CALLS,
  subjectOfEvent,
  validateJson,
  WardenEventSchema,
  type EventFailure,
  type EventOfType,
  type EventType,
  type ParsedCallSubject,
  type WardenEvent,
} from "@warden/contracts";
import type { Bus } from "./bus.js";
import { decodeJson } from "./codec.js";
import { copyToDlq } from "./dlq.js";
import type { Logger } from "./logger.js";
import { consumeOptions, type PullTuning } from "./pull-options.js";
import { unlessNotFound } from "./nats-errors.js";

const MS_NS = 1_000_000;
export const REPLAY_AGE_MS = 30_000;

/** What a handler decided; the runner is the one place where outcomes become acks. */
export type StageOutcome =
  | { readonly kind: "ack" }
  /** A transient fault: nak with backoff, try again later. */
  | { readonly kind: "retry"; readonly reason: string }
  /** Input the stage can never process: term and copy to the DLQ with the reason. */
  | { readonly kind: "poison"; readonly reason: string };

export const ACK: StageOutcome = { kind: "ack" };

export interface StageContext {
  readonly log: Logger;
  readonly subject: ParsedCallSubject;
  readonly streamSeq: number;
  readonly deliveryCount: number;
  /** True on the last delivery the consumer will make. */
  readonly lastAttempt: boolean;
  /**
   * A redelivery, or an event older than REPLAY_AGE_MS (e.g. replayed to a recreated durable):
   * the call's history may already hold an answer, so handlers read it before acting.
   */
  readonly possibleReplay: boolean;
  /** Aborted when the runner stops. */
  readonly signal: AbortSignal;
}

/** Why a message on a usable subject could not be read as the event its subject names. */
export type UndecodableCode = EventFailure;

export interface UndecodableMessage {
  readonly code: UndecodableCode;
  readonly reason: string;
  /** The message as stored (bounded by the stage's maxBytes only when the code is not TOO_LARGE). */
  readonly data: Uint8Array;
  /** The decoded JSON, when the bytes were JSON within the stage's limits. */
  readonly json?: unknown;
  /** The event, when the JSON was a valid event that is not the one its subject names. */
  readonly event?: WardenEvent;
}

/**
 * Messages a killed copy held come back to the others after this long. Short, since a live copy
 * renews what it works on every third of it (a 30 s wait left calls stuck 30 s after each crash).
 */
export const STAGE_ACK_WAIT_MS = 10_000;

/** Options of {@link runStage}: which events a stage consumes and what it does with each. */
export interface StageSpec<T extends EventType> {
  readonly bus: Bus;
  readonly log: Logger;
  /** Durable consumer name (`consumerName(...)` of `@warden/contracts`); every copy of the service shares it. */
  readonly durable: string;
  /** The one event type the stage handles; a message of another type is dead-lettered. */
  readonly eventType: T;
  /** The stream subjects consumed (`stageFilterSubject(eventType, domain?)` of `@warden/contracts`). */
  readonly filterSubject: string;
  /** Messages handled at once by this copy. @default 64 */
  readonly concurrency?: number;
  /** Deliveries before a `retry` counts as exhausted (`onExhausted`, then the DLQ). @default 5 */
  readonly maxDeliver?: number;
  /**
   * How long a delivered message stays this copy's without a sign of life; a long handler keeps
   * it by `working()` every third of it.
   * @default 10_000 (STAGE_ACK_WAIT_MS)
   */
  readonly ackWaitMs?: number;
  /** Delay before redelivery after a retry, by delivery count (the last value repeats). @default [250, 1_000, 5_000, 15_000] */
  readonly backoffMs?: readonly number[];
  /**
   * Decides what happens to one valid event: return `ACK` (done, including a domain refusal it
   * appended), `{ kind: "retry", reason }` (a transient fault: redelivered after `backoffMs`) or
   * `{ kind: "poison", reason }` (never processable: terminated and copied to the DLQ). A throw
   * counts as a retry. Never ack the message yourself.
   */
  readonly handle: (event: EventOfType<T>, ctx: StageContext) => Promise<StageOutcome>;
  /**
   * A cheap look at the decoded JSON before schema validation: return false for a well-formed
   * event this stage has no business with (it is acked unvalidated). Anything doubtful must
   * return true so it is validated (and dead-lettered if bad).
   */
  readonly accept?: (raw: unknown) => boolean;
  /** Called when retries are exhausted, to publish a failure for the call before it is dropped. */
  readonly onExhausted?: (event: EventOfType<T>, reason: string, ctx: StageContext) => Promise<void>;
  /**
   * Called for a message whose subject is usable but whose body is not the event it names (not
   * UTF-8, not JSON, too deep or large, schema-invalid, or naming another call): the stage may
   * answer the call from the subject alone (the registry rejects the request, so its caller does
   * not wait for nothing). Whatever it returns, the message is recorded in the DLQ once and
   * terminated; `retry` defers that to a later delivery (a transient fault while answering).
   */
  readonly onUndecodable?: (message: UndecodableMessage, ctx: StageContext) => Promise<StageOutcome>;
  /** Larger messages are undecodable (`TOO_LARGE`); default: no limit beyond the server's. */
  readonly maxBytes?: number;
  /** Messages nesting deeper are undecodable (`TOO_DEEP`); default MAX_JSON_DEPTH. */
  readonly maxDepth?: number;
  /** Pull expiry and heartbeat (defaults 5 s and 1 s): how soon a lost leader's pull is replaced. */
  readonly pull?: PullTuning;
}

export interface StageRunner {
  /** Stops pulling, waits for in-flight messages to finish, leaves the durable in place. */
  stop(): Promise<void>;
  readonly done: Promise<void>;
}

export async function ensureStageConsumer(bus: Bus, durable: string, filterSubject: string, opts: { maxDeliver: number; ackWaitMs: number; maxAckPending: number }): Promise<void> {
  const config = {
    durable_name: durable,
    filter_subject: filterSubject,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    max_deliver: opts.maxDeliver,
    ack_wait: opts.ackWaitMs * MS_NS,
    max_ack_pending: opts.maxAckPending,
  };
  const existing = await unlessNotFound(bus.jsm.consumers.info(STREAM_CALLS, durable));
  if (existing === undefined) {
    await putDurable(bus, config).catch(async (err: unknown) => {
      // another replica created it first: fine when it is there now
      if ((await unlessNotFound(bus.jsm.consumers.info(STREAM_CALLS, durable))) === undefined) throw err;
    });
  } else if (existing.config.filter_subject !== filterSubject) {
    throw new Error(`consumer ${durable} exists with filter ${existing.config.filter_subject ?? "(none)"}, not ${filterSubject}`);
  } else if (existing.config.max_deliver !== opts.maxDeliver || existing.config.ack_wait !== config.ack_wait) {
    await putDurable(bus, { ...config, deliver_policy: existing.config.deliver_policy });
  }
}

/**
 * Creates or updates a durable through the subject that names it
 * (`$JS.API.CONSUMER.DURABLE.CREATE.<stream>.<durable>`): NATS permissions let each service use
 * that subject for its own durables only, and refuse everyone the forms whose name is in the body.
 */
async function putDurable(bus: Bus, config: Partial<ConsumerConfig> & { durable_name: string }): Promise<void> {
  const subject = `$JS.API.CONSUMER.DURABLE.CREATE.${STREAM_CALLS}.${config.durable_name}`;
  const reply = await bus.nc.request(subject, new TextEncoder().encode(JSON.stringify({ stream_name: STREAM_CALLS, config })), { timeout: 5_000 });
  const answer = JSON.parse(new TextDecoder().decode(reply.data)) as { error?: { code?: number; description?: string } };
  if (answer.error) throw new Error(`could not create consumer ${config.durable_name}: ${answer.error.description ?? "error"} (${answer.error.code ?? "?"})`);
}

/**
 * Runs a durable pull consumer over one event type: parse and validate each message, hand it to
 * the handler with bounded concurrency, and turn the outcome into ack / nak / term + DLQ. The
 * one place in Warden where messages are acked. A message that is not the event its subject
 * names is dead-lettered with its code (`TOO_LARGE`, `NOT_UTF8`, `TOO_DEEP`, `MALFORMED_JSON`,
 * `SCHEMA_INVALID`, `SUBJECT_MISMATCH`) after `onUndecodable`, if given, had its say.
 *
 * @throws when the durable cannot be created or read (no permission for it, no stream), or
 *   exists with another filter subject.
 * @example
 * ```ts
 * const stage = await runStage({
 *   bus,
 *   log,
 *   durable: consumerName("policy"),
 *   eventType: "ToolArgsValidated",
 *   filterSubject: stageFilterSubject("ToolArgsValidated"),
 *   handle: async (event, ctx) => {
 *     const r = await appendEvent(bus, decide(event));
 *     ctx.log.debug({ status: r.status }, "decision appended");
 *     return ACK;
 *   },
 * });
 * // on shutdown: await stage.stop();
 * ```
 */
export async function runStage<T extends EventType>(spec: StageSpec<T>): Promise<StageRunner> {
  const concurrency = spec.concurrency ?? 64;
  const maxDeliver = spec.maxDeliver ?? 5;
  const ackWaitMs = spec.ackWaitMs ?? STAGE_ACK_WAIT_MS;
  const backoff = spec.backoffMs ?? [250, 1_000, 5_000, 15_000];
  const { bus, log } = spec;
  await ensureStageConsumer(bus, spec.durable, spec.filterSubject, { maxDeliver, ackWaitMs, maxAckPending: Math.max(concurrency * 4, 256) });
  const consumer = await bus.js.consumers.get(STREAM_CALLS, spec.durable);
  // at most `concurrency` messages requested at once: with as many in flight, that is all it holds
  const messages: ConsumerMessages = await consumer.consume(consumeOptions(concurrency, spec.pull));
  const abort = new AbortController();
  const inFlight = new Set<Promise<void>>();
  let slotFree: (() => void) | undefined;
  const limits = { ...(spec.maxBytes === undefined ? {} : { maxBytes: spec.maxBytes }), ...(spec.maxDepth === undefined ? {} : { maxDepth: spec.maxDepth }) };

  // the one place a message is terminated: recorded in the DLQ once, then never redelivered
  const deadLetter = async (m: JsMsg, reason: string, mlog: Logger) => {
    mlog.warn({ reason }, "message terminated to dlq");
    try {
      await copyToDlq(bus, { stage: spec.durable, reason, subject: m.subject, streamSeq: m.seq, data: m.data });
    } catch (err) {
      mlog.error({ err }, "dlq copy failed");
    }
    // no reason on the term: servers before 2.10 ignore "+TERM <reason>" and would redeliver
    m.term();
  };

  const retryLater = (m: JsMsg, reason: string, ctx: StageContext) => {
    const delay = backoff[Math.min(ctx.deliveryCount - 1, backoff.length - 1)] ?? 1_000;
    ctx.log.warn({ reason, delayMs: delay }, "message will be retried");
    m.nak(delay);
  };

  /** Runs a handler while keeping the message ours; a throw is a transient fault. */
  const guarded = async (m: JsMsg, ctx: StageContext, run: () => Promise<StageOutcome>): Promise<StageOutcome> => {
    const heartbeat = setInterval(() => m.working(), Math.max(1_000, Math.floor(ackWaitMs / 3)));
    try {
      return await run();
    } catch (err) {
      ctx.log.error({ err }, "stage handler failed");
      return { kind: "retry", reason: `handler error: ${(err as Error).message}` };
    } finally {
      clearInterval(heartbeat);
    }
  };

  const undecodable = async (m: JsMsg, problem: UndecodableMessage, ctx: StageContext): Promise<void> => {
    // the code first, as the projector writes its letters, so letters can be counted by code
    const why = `${problem.code}: ${problem.reason}`;
    const onUndecodable = spec.onUndecodable;
    if (onUndecodable === undefined) return deadLetter(m, why, ctx.log);
    const outcome = await guarded(m, ctx, () => onUndecodable(problem, ctx));
    if (outcome.kind === "ack") return deadLetter(m, `${why} (answered by the stage)`, ctx.log);
    if (outcome.kind === "poison") return deadLetter(m, `${why}; ${outcome.reason}`, ctx.log);
    if (ctx.lastAttempt) return deadLetter(m, `${why}; not answered after ${ctx.deliveryCount} deliveries: ${outcome.reason}`, ctx.log);
    retryLater(m, outcome.reason, ctx);
  };

  const processOne = async (m: JsMsg): Promise<void> => {
    const deliveryCount = m.info.deliveryCount;
    // child loggers are made only when something is logged: making two per message cost ~3% CPU
    let bindings: Record<string, unknown> = { seq: m.seq, deliveryCount };
    let childLog: Logger | undefined;
    const mlogOf = () => (childLog ??= log.child(bindings));
    const subject = parseCallSubject(m.subject);
    if (subject === undefined || !subject.types.includes(spec.eventType)) {
      return deadLetter(m, `unexpected subject ${m.subject}`, mlogOf());
    }
    const contextOf = (ts?: string): StageContext => ({
      get log() {
        return mlogOf();
      },
      subject,
      streamSeq: m.seq,
      deliveryCount,
      lastAttempt: deliveryCount >= maxDeliver,
      possibleReplay: deliveryCount > 1 || (ts !== undefined && Date.now() - Date.parse(ts) > REPLAY_AGE_MS),
      signal: abort.signal,
    });
    const decoded = decodeJson(m.data, limits);
    if (!decoded.ok) return undecodable(m, { code: decoded.code, reason: decoded.reason, data: m.data }, contextOf());
    const json = decoded.value;
    if (spec.accept && !spec.accept(json)) {
      m.ack();
      return;
    }
    const parsed = validateJson(WardenEventSchema, json);
    if (!parsed.ok) {
      const reason = parsed.code === "SCHEMA_INVALID" ? `schema-invalid ${spec.eventType}: ${parsed.reason}` : parsed.reason;
      return undecodable(m, { code: parsed.code, reason, data: m.data, ...(parsed.code === "SCHEMA_INVALID" ? { json } : {}) }, contextOf());
    }
    const event = parsed.value;
    if (event.type !== spec.eventType || subjectOfEvent(event) !== m.subject) {
      return undecodable(m, { code: "SUBJECT_MISMATCH", reason: `event does not match its subject ${m.subject}`, data: m.data, json, event }, contextOf());
    }
    bindings = { ...bindings, callId: event.callId, eventId: event.eventId };
    const ctx = contextOf(event.ts);
    const outcome = await guarded(m, ctx, () => spec.handle(event as EventOfType<T>, ctx));
    if (outcome.kind === "ack") {
      m.ack();
    } else if (outcome.kind === "poison") {
      await deadLetter(m, outcome.reason, ctx.log);
    } else if (ctx.lastAttempt) {
      const reason = `retries exhausted after ${deliveryCount} deliveries: ${outcome.reason}`;
      try {
        await spec.onExhausted?.(event as EventOfType<T>, reason, ctx);
      } catch (err) {
        ctx.log.error({ err }, "exhausted handler failed");
      }
      await deadLetter(m, reason, ctx.log);
    } else {
      retryLater(m, outcome.reason, ctx);
    }
  };

  // a lost leader shows as missed heartbeats; the client then checks the consumer and pulls again
  void (async () => {
    for await (const s of messages.status()) {
      if (s.type === "heartbeats_missed" || s.type === "consumer_deleted" || s.type === "consumer_not_found") log.warn({ status: s.type }, "stage consumer stalled");
    }
  })().catch((err: unknown) => log.warn({ err }, "stage status watch ended"));

  let stopped = false;
  const loop = (async () => {
    for await (const m of messages) {
      if (stopped) {
        m.nak();
        continue;
      }
      while (inFlight.size >= concurrency) {
        await new Promise<void>((resolve) => (slotFree = resolve));
      }
      const p = processOne(m)
        .catch((err: unknown) => {
          // a bug on the way to the handler: retry later rather than leave the message parked
          log.error({ err, seq: m.seq }, "stage message failed");
          m.nak(backoff[0] ?? 1_000);
        })
        .finally(() => {
          inFlight.delete(p);
          const free = slotFree;
          slotFree = undefined;
          free?.();
        });
      inFlight.add(p);
    }
  })();

  let stopping: Promise<void> | undefined;
  return {
    done: loop,
    stop() {
      stopping ??= (async () => {
        stopped = true;
        await messages.close();
        // the loop's own failure is reported to whoever awaits `done`
        await Promise.allSettled([loop]);
        await Promise.allSettled([...inFlight]);
        abort.abort();
      })();
      return stopping;
    },
  };
}
