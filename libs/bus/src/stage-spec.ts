import type { EventOfType, EventType, WardenEvent } from "@warden/contracts/events";
import type { ParsedCallSubject } from "@warden/contracts/subjects";
import type { EventFailure } from "@warden/contracts/json";
import type { Bus } from "./bus.js";
import type { Logger } from "./logger.js";
import type { PullTuning } from "./pull-options.js";


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
   * A redelivery, or a message the stream stored before the durable was (re)created, so delivered
   * again from the start: the call's history may already hold an answer, so handlers read it
   * before acting. A first delivery of a message newer than the durable never is, however old.
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
  /**
   * The event type the stage handles, or the types that share one subject (the outcome slot's);
   * a message of another type is dead-lettered.
   */
  readonly eventType: T | readonly T[];
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
