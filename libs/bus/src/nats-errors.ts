import { JetStreamApiCodes, JetStreamApiError } from "@nats-io/jetstream";
import { errors } from "@nats-io/transport-node";

/**
 * Classifies the NATS client's errors by their codes and classes, so callers catch only the error
 * they expect and let auth failures, timeouts and bugs through.
 */

/** A compare-and-set write lost: the key or subject holds a newer revision than expected. */
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

/** A stream, consumer or message that does not exist (JetStream API 404s). */
export function isNotFound(err: unknown): boolean {
  return (
    err instanceof JetStreamApiError &&
    (err.code === JetStreamApiCodes.StreamNotFound || err.code === JetStreamApiCodes.ConsumerNotFound || err.code === JetStreamApiCodes.NoMessageFound)
  );
}

/** The server refused this identity the publish or subscription (anywhere in the cause chain). */
export function isPermissionViolation(err: unknown): boolean {
  return causes(err).some((e) => e instanceof errors.PermissionViolationError || e instanceof errors.AuthorizationError);
}

function causes(err: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let e = err; e !== undefined && e !== null && chain.length < 8; e = (e as { cause?: unknown }).cause) chain.push(e);
  return chain;
}

/** The value, or undefined when what it asks about does not exist; every other error is thrown. */
export async function unlessNotFound<T>(pending: Promise<T>): Promise<T | undefined> {
  try {
    return await pending;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}
