import type { Logger } from "@warden/bus";
import { type ApprovalRequested } from "@warden/contracts/events";
import { fail, ok, type Outcome } from "@warden/contracts/errors";
import type { ApproverClient } from "./approver-client.js";
import type { ApprovalWatch } from "./durable-approval-watch.js";

/** The durable name a notifier's deliveries are kept under unless told otherwise. */
export const DEFAULT_WEBHOOK_DURABLE = "webhook";

/** Options of {@link startWebhookNotifier}. */
export interface WebhookNotifierOptions {
  /** The person whose new approval requests are posted (their own client, their own credentials). */
  readonly approver: ApproverClient;
  /** Where each new card is POSTed as JSON: loopback (http or https), or https on a host of `allowHosts`. */
  readonly url: string;
  /** Host names besides loopback a card may be sent to (exact, case-insensitive). @default [] */
  readonly allowHosts?: readonly string[];
  /** The durable delivery the notifier follows, so cards made while it was down are posted when it is back. @default "webhook" */
  readonly durable?: string;
  /** Attempts per card before it is given up (logged) and the next one is posted. @default 8 */
  readonly maxAttempts?: number;
  /** Wait before the first retry, doubled each time up to `maxBackoffMs`. @default 500 */
  readonly firstBackoffMs?: number;
  /** @default 30_000 */
  readonly maxBackoffMs?: number;
  /** How long one POST may take. @default 5_000 */
  readonly requestTimeoutMs?: number;
  readonly log?: Logger;
}

/** A running notifier: `stop()` ends it (a card being retried is delivered again by the next start). */
export interface WebhookNotifier {
  /** Cards posted (answered 2xx) and given up since the start. */
  readonly counts: { readonly posted: number; readonly gaveUp: number };
  stop(): Promise<void>;
}

/** What a webhook receives: `POST <url>`, `content-type: application/json`. */
export interface WebhookCard {
  readonly type: "approval.requested";
  /** The person the notifier runs as (who may decide it). */
  readonly approver: string;
  /** The approval request as the stream holds it: args, grade, requester, expiry, rule and reason. */
  readonly card: ApprovalRequested;
}

const LOOPBACK_HOSTS = new Set(["localhost", "::1", "[::1]"]);

function isLoopback(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname) || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/**
 * Checks a webhook URL against where cards may go: a card holds a call's full args, so it is sent
 * only to this machine (loopback) or to a host the operator allowed by name, over https. A refusal
 * is `INVALID_REQUEST` naming the setting to change.
 */
export function webhookTarget(url: string, allowHosts: readonly string[] = []): Outcome<URL> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return fail("INVALID_REQUEST", `webhook URL ${JSON.stringify(url)} is not a URL`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return fail("INVALID_REQUEST", `webhook URL ${url} must be http or https`);
  if (parsed.username !== "" || parsed.password !== "") return fail("INVALID_REQUEST", "webhook URL must not carry credentials");
  const host = parsed.hostname.toLowerCase();
  if (isLoopback(host)) return ok(parsed);
  if (!allowHosts.some((h) => h.toLowerCase() === host)) {
    return fail("INVALID_REQUEST", `webhook host ${host} is neither loopback nor allowed: add it to the allowed hosts (--webhook-allow / WARDEN_WEBHOOK_ALLOW_HOSTS) to send approval cards there`);
  }
  if (parsed.protocol !== "https:") return fail("INVALID_REQUEST", `webhook URL ${url} must be https: a card carries the call's args`);
  return ok(parsed);
}

/**
 * Posts each new approval request this person may decide to a webhook, as a {@link WebhookCard}.
 * It follows the person's durable delivery (`approver.watch({ durable })`), so it never stands in
 * an approval's way: it runs beside Warden, a card is posted after it is requested, and a webhook
 * that is down only delays its own cards. Each card is retried with doubling backoff, then given up
 * (logged); a card is acknowledged once posted or given up. Refuses a URL {@link webhookTarget}
 * refuses.
 *
 * @example
 * ```ts
 * const n = startWebhookNotifier({ approver: createApproverClient({ bus, approver: "alice" }), url: "http://127.0.0.1:9000/cards" });
 * if (!n.ok) throw new Error(n.error.message);
 * // …later: await n.value.stop();
 * ```
 */
export function startWebhookNotifier(opts: WebhookNotifierOptions): Outcome<WebhookNotifier> {
  const target = webhookTarget(opts.url, opts.allowHosts);
  if (!target.ok) return target;
  const url = target.value;
  const maxAttempts = opts.maxAttempts ?? 8;
  const firstBackoffMs = opts.firstBackoffMs ?? 500;
  const maxBackoffMs = opts.maxBackoffMs ?? 30_000;
  const requestTimeoutMs = opts.requestTimeoutMs ?? 5_000;
  const counts = { posted: 0, gaveUp: 0 };
  let stopped = false;
  let wakeStop!: () => void;
  const stopping = new Promise<void>((r) => (wakeStop = r));
  const watch: ApprovalWatch = opts.approver.watch({ durable: opts.durable ?? DEFAULT_WEBHOOK_DURABLE });

  async function post(card: ApprovalRequested): Promise<boolean> {
    const body: WebhookCard = { type: "approval.requested", approver: opts.approver.approver, card };
    let backoff = firstBackoffMs;
    for (let attempt = 1; attempt <= maxAttempts && !stopped; attempt++) {
      try {
        const res = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json", "x-warden-approval-id": card.data.approvalId },
          body: JSON.stringify(body),
          // a redirect could lead anywhere: only the checked URL gets the card
          redirect: "error",
          signal: AbortSignal.timeout(requestTimeoutMs),
        });
        await res.body?.cancel();
        if (res.ok) return true;
        opts.log?.warn({ approvalId: card.data.approvalId, status: res.status, attempt }, "webhook refused the card, will retry");
      } catch (err) {
        opts.log?.warn({ approvalId: card.data.approvalId, err, attempt }, "webhook unreachable, will retry");
      }
      if (attempt < maxAttempts) await Promise.race([sleep(backoff), stopping]);
      backoff = Math.min(backoff * 2, maxBackoffMs);
    }
    return false;
  }

  const running = (async () => {
    // iterated by hand: breaking out of a for-await would acknowledge a card the stop interrupted
    const cards = watch[Symbol.asyncIterator]();
    for (;;) {
      const next = await cards.next();
      if (next.done === true) break;
      const card = next.value;
      if (await post(card)) counts.posted++;
      else if (stopped) return; // not acknowledged: the next start posts it
      else {
        counts.gaveUp++;
        opts.log?.error({ approvalId: card.data.approvalId, attempts: maxAttempts }, "webhook never took the card, given up");
      }
      if (stopped) {
        // posted or given up: acknowledged as the iteration ends
        await cards.return?.();
        return;
      }
    }
    if (watch.error !== undefined) opts.log?.error({ code: watch.error.code, message: watch.error.message }, "approval delivery ended");
  })();

  return ok({
    counts,
    async stop() {
      stopped = true;
      wakeStop();
      watch.stop();
      await running;
    },
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
