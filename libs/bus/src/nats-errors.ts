import { JetStreamApiCodes, JetStreamApiError } from "@nats-io/jetstream";
import { errors } from "@nats-io/transport-node";

/**
 * Classifies the NATS client's errors by their codes and classes, so callers catch only the error
 * they expect and let auth failures, timeouts and bugs through.
 */

/**
 * A compare-and-set write lost: the key or subject holds a newer revision than expected
 * (JetStream API codes 10071 and 10164). Read again and retry, or treat it as "someone else wrote".
 * @example
 * ```ts
 * try { await kv.update(key, value, revision); }
 * catch (err) { if (!isRevisionConflict(err)) throw err; return "lost the race"; }
 * ```
 */
export function isRevisionConflict(err: unknown): boolean {
  return (
    err instanceof JetStreamApiError &&
    (err.code === JetStreamApiCodes.StreamWrongLastSequence || err.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)
  );
}

const STORE_FAILED_CODE = 10077;

/**
 * The stream refused a message because its subject is full (discard-new per subject). The server
 * shares code 10077 among every store failure (also "maximum bytes exceeded"), so the description
 * is the only thing that tells a full subject from a full stream.
 */
export function isSubjectFull(err: unknown): boolean {
  return err instanceof JetStreamApiError && err.code === STORE_FAILED_CODE && /per subject/i.test(err.message);
}

/** A stream, consumer or message that does not exist (JetStream API 404s); see {@link unlessNotFound}. */
export function isNotFound(err: unknown): boolean {
  return (
    err instanceof JetStreamApiError &&
    (err.code === JetStreamApiCodes.StreamNotFound || err.code === JetStreamApiCodes.ConsumerNotFound || err.code === JetStreamApiCodes.NoMessageFound)
  );
}

/**
 * The server refused this identity the publish, request or subscription (a permissions or
 * authorization error, anywhere in the cause chain): asking again cannot help; the SDK reports it
 * as `FORBIDDEN`.
 */
export function isPermissionViolation(err: unknown): boolean {
  return causes(err).some(
    (e) => e instanceof errors.PermissionViolationError || e instanceof errors.AuthorizationError || e instanceof errors.UserAuthenticationExpiredError,
  );
}

/**
 * Nobody answered in time, nobody listens yet, or JetStream is not ready (a 503 while the server
 * starts or elects a leader): asking again later can help.
 */
export function isNoAnswer(err: unknown): boolean {
  return causes(err).some(
    (e) => e instanceof errors.TimeoutError || e instanceof errors.NoRespondersError || (e instanceof JetStreamApiError && e.status === 503),
  );
}

const STREAM_CREATE_FAILED_CODE = 10049;

/**
 * A clustered stream create that did not settle: a node failed to make its replica's store (2.9
 * on a cluster that has just formed: "error creating store for stream"), or the stream just made
 * is not found because the meta leader dropped it after that failure. Creating it again, once the
 * nodes have the account set up, succeeds; a stream create that keeps failing is a real fault.
 */
export function isStreamCreateUnsettled(err: unknown): boolean {
  return (
    err instanceof JetStreamApiError &&
    (err.code === STREAM_CREATE_FAILED_CODE || err.code === JetStreamApiCodes.StreamNotFound)
  );
}

function causes(err: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let e = err; e !== undefined && e !== null && chain.length < 8; e = (e as { cause?: unknown }).cause) chain.push(e);
  return chain;
}

/**
 * The value, or undefined when what it asks about does not exist; every other error is thrown.
 * @example
 * ```ts
 * const info = await unlessNotFound(bus.jsm.consumers.info(STREAM_CALLS, durable));
 * if (info === undefined) await create();
 * ```
 */
export async function unlessNotFound<T>(pending: Promise<T>): Promise<T | undefined> {
  try {
    return await pending;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}
