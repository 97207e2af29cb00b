import type { Msg, Subscription } from "@nats-io/transport-node";
import { wardenError, type WardenError } from "@warden/contracts/errors";
import { ReplySchema, type Reply } from "@warden/contracts/descriptor";
import type { Bus } from "./bus.js";
import { decodeJson, encodeJson } from "./codec.js";
import type { Logger } from "./logger.js";
import { isNoAnswer, isPermissionViolation } from "./nats-errors.js";

/**
 * Answers one request: `payload` is the decoded JSON (validate it before use), `msg.subject` the
 * subject it came on (whose tokens carry the asker's identity). Return `{ ok: true, value }` or
 * `{ ok: false, error }` (a WardenError); a throw is answered as `INTERNAL`, or `UNAVAILABLE`
 * (retryable) when it is JetStream or a responder not answering.
 */
export type RpcHandler = (payload: unknown, msg: Msg) => Promise<Reply>;

/**
 * Serves a request-reply subject (wildcards allowed) in a queue group, so copies of a service
 * share the requests. A body that is not JSON within limits is answered `INVALID_REQUEST` with
 * the guard's reason (`TOO_LARGE`, `NOT_UTF8`, `TOO_DEEP`, `MALFORMED_JSON`); a handler that
 * throws is answered `INTERNAL` and logged. Only replies to an inbox are sent. Unsubscribe the
 * returned subscription (or drain the bus) to stop.
 *
 * @example
 * ```ts
 * const sub = serveRpc(bus, "warden.example.>", "example", log, async (payload, msg) => {
 *   const req = validateJson(ExampleRequestSchema, payload);
 *   if (!req.ok) return { ok: false, error: wardenError("INVALID_REQUEST", req.reason) };
 *   return { ok: true, value: await answer(req.value, msg.subject) };
 * });
 * ```
 */
export function serveRpc(bus: Bus, subject: string, queue: string, log: Logger, handler: RpcHandler): Subscription {
  return bus.nc.subscribe(subject, {
    queue,
    callback: (err, msg) => {
      if (err) {
        log.error({ err, subject }, "rpc subscription error");
        return;
      }
      void (async () => {
        let reply: Reply;
        const decoded = decodeJson(msg.data);
        if (!decoded.ok) reply = { ok: false, error: wardenError("INVALID_REQUEST", decoded.reason) };
        else {
          try {
            reply = await handler(decoded.value, msg);
          } catch (e) {
            log.error({ err: e, subject: msg.subject }, "rpc handler failed");
            // JetStream not answering (an election, a restart, a partition healing) is worth asking
            // again: a person's decision refused INTERNAL was final to the SDK, and the approval expired
            reply = { ok: false, error: wardenError(isNoAnswer(e) ? "UNAVAILABLE" : "INTERNAL", (e as Error).message) };
          }
        }
        if (msg.reply === undefined || msg.reply === "") return;
        // a reply subject is the asker's inbox: answering on anything else (a stream subject) would
        // let a service inside the Warden account write a message where an event belongs
        if (!isInboxSubject(msg.reply)) {
          log.warn({ subject: msg.subject, reply: msg.reply }, "rpc reply subject is not an inbox; not answered");
          return;
        }
        msg.respond(encodeJson(reply));
      })();
    },
  });
}

/** Inboxes of this account (`_INBOX.`) and replies remapped across accounts (`_R_.`). */
export function isInboxSubject(subject: string): boolean {
  return subject.startsWith("_INBOX.") || subject.startsWith("_R_.");
}

/**
 * Sends a request and returns the answer as a value; never throws. No responder or a timeout
 * come back as `UNAVAILABLE` (retryable), a request the server's permissions refuse as
 * `FORBIDDEN`, an answer that is not a Reply as `INTERNAL`; otherwise the server's own reply
 * (`{ ok: true, value }` — validate `value` — or its error).
 *
 * @param timeoutMs - how long to wait for the answer; default 5_000.
 * @example
 * ```ts
 * const reply = await requestRpc(bus, approverPendingSubject("alice"), {}, 2_000);
 * if (!reply.ok && reply.error.retryable) scheduleRetry();
 * ```
 */
export async function requestRpc(bus: Bus, subject: string, payload: unknown, timeoutMs = 5_000): Promise<Reply> {
  let msg: Msg;
  try {
    msg = await bus.nc.request(subject, encodeJson(payload), { timeout: timeoutMs });
  } catch (err) {
    return { ok: false, error: unavailable(subject, err) };
  }
  const decoded = decodeJson(msg.data);
  if (!decoded.ok) return { ok: false, error: wardenError("INTERNAL", `bad reply from ${subject}: ${decoded.reason}`) };
  const parsed = ReplySchema.safeParse(decoded.value);
  return parsed.success ? parsed.data : { ok: false, error: wardenError("INTERNAL", `bad reply from ${subject}`) };
}

function unavailable(subject: string, err: unknown): WardenError {
  const text = (err as Error).message ?? String(err);
  // the server refused the request itself: asking again, or waiting for a service, cannot help
  if (isPermissionViolation(err)) {
    return wardenError("FORBIDDEN", `the server refused this identity a request on ${subject} (${text})`);
  }
  return wardenError("UNAVAILABLE", `no answer on ${subject} (${text}); is the service running?`);
}
