import { requestRpc, type Bus } from "@warden/bus";
import { type ApprovalRequested } from "@warden/contracts/events";
import { approverDeliverSubject, isSafeToken, MAX_JSON_DEPTH } from "@warden/contracts/subjects";
import { wardenError, type WardenError } from "@warden/contracts/errors";
import { DeliveryReplySchema, type DeliveryRequestInput } from "@warden/contracts/approval";
import { safeParseGuarded } from "@warden/contracts/json";

/** How long one delivery request waits for a new approval request on the approver's side. */
const LONG_POLL_MS = 10_000;
/** The answer still has to travel once the approver stops waiting. */
const REPLY_SLACK_MS = 5_000;
const FIRST_BACKOFF_MS = 200;
const MAX_BACKOFF_MS = 5_000;

/** New approval requests as they arrive; `stop()` ends the iteration. */
export interface ApprovalWatch extends AsyncIterable<ApprovalRequested> {
  stop(): void;
  /** Why a durable watch ended by itself (a refusal such as `FORBIDDEN`); undefined while it runs and after `stop()`. */
  readonly error: WardenError | undefined;
}

/**
 * A person's durable delivery: asks the approver service for the requests after the position it
 * keeps under `<approver>.<durable>`, acknowledging each request once the loop has moved past it
 * (asked for the next one, broken out, or stopped). Requests made while no app watched are
 * delivered when one comes back; a request the app received but did not move past is delivered
 * again (at least once). A retryable error (no approver answered) is asked again with backoff; a
 * refusal ends the iteration, with `error` saying why.
 */
export function watchDurably(bus: Bus, approver: string, durable: string): ApprovalWatch {
  let stopped = false;
  let stopSignal!: () => void;
  const stopping = new Promise<"stopped">((r) => (stopSignal = () => r("stopped")));
  let error: WardenError | undefined;
  /** The highest sequence the loop has moved past and the approver has not been told of yet. */
  let unacked: number | undefined;

  const ask = (body: DeliveryRequestInput, waitMs: number) => requestRpc(bus, approverDeliverSubject(approver, durable), body, waitMs + REPLY_SLACK_MS);

  const flush = () => {
    if (unacked === undefined) return;
    const ack = unacked;
    unacked = undefined;
    // fire and forget: if it is lost, the request is delivered again next time (at least once)
    void ask({ ack, waitMs: 0, max: 1 }, 0);
  };

  async function* deliveries(): AsyncGenerator<ApprovalRequested> {
    if (!isSafeToken(approver) || !isSafeToken(durable)) {
      error = wardenError("INVALID_REQUEST", "the approver and the durable name must be safe tokens (^[A-Za-z0-9_-]{1,128}$)");
      return;
    }
    let backoff = FIRST_BACKOFF_MS;
    try {
      while (!stopped) {
        const body = { ...(unacked === undefined ? {} : { ack: unacked }), waitMs: LONG_POLL_MS };
        const reply = await Promise.race([ask(body, LONG_POLL_MS), stopping]);
        if (reply === "stopped") break;
        if (!reply.ok) {
          if (!reply.error.retryable) {
            error = reply.error;
            return;
          }
          if ((await Promise.race([sleep(backoff), stopping])) === "stopped") break;
          backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
          continue;
        }
        backoff = FIRST_BACKOFF_MS;
        // the reply wraps each event two levels down
        const parsed = safeParseGuarded(DeliveryReplySchema, reply.value, MAX_JSON_DEPTH + 3);
        if (!parsed.ok) {
          error = wardenError("INTERNAL", `unexpected delivery reply: ${parsed.code}`);
          return;
        }
        unacked = undefined;
        for (const d of parsed.value.deliveries) {
          if (stopped) break;
          // handled once the loop moves past it (asks for the next one, breaks, stops); a crash sends nothing
          unacked = d.seq;
          yield d.request;
        }
      }
    } finally {
      // broken out of or stopped after handling the last one: say so, so it is not delivered again
      flush();
    }
  }

  const iterator = deliveries();
  return {
    [Symbol.asyncIterator]: () => iterator,
    stop() {
      stopped = true;
      stopSignal();
    },
    get error() {
      return error;
    },
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
