import { requestRpc, type Bus } from "@warden/bus";
import { validateEventJson, type ApprovalRequested } from "@warden/contracts/events";
import {
  decideSubject,
  isSafeToken,
  lastSubjectToken,
  MAX_EVENT_BYTES,
  approverNotifyFilter,
  approverPendingSubject,
} from "@warden/contracts/subjects";
import { fail, ok, wardenError, type Outcome, type WardenError } from "@warden/contracts/errors";
import { type SessionGrantRequest } from "@warden/contracts/policy";
import {
  DecidedApprovalSchema,
  DECISION_REFUSALS,
  DecisionReplySchema,
  PendingApprovalSchema,
  SessionGrantViewSchema,
  type DecidedApproval,
  type DecisionReply,
  type DecisionRequest,
  type PendingApproval,
  type PendingRequest,
  type SessionGrantView,
} from "@warden/contracts/approval";
import { parseJsonGuarded, type JsonValue } from "@warden/contracts/json";
import { revokeSessionGrant, type CancelOutcome } from "./cancel-call.js";
import { watchDurably, type ApprovalWatch } from "./durable-approval-watch.js";
import { z } from "zod";

const RPC_TIMEOUT_MS = 5_000;

/**
 * A decision's answer: `{ ok: true, … }` when it was recorded, else `{ ok: false, refusal,
 * message }` with `refusal` one of `UNKNOWN_APPROVAL`, `EXPIRED`, `ALREADY_DECIDED`,
 * `ARGS_HASH_MISMATCH`, `NOT_AUTHORISED` (the policy, or the server, does not let this approver
 * decide it), `MALFORMED`, or `UNAVAILABLE` (no approver service answered in time).
 */
export type DecisionOutcome = DecisionReply | { readonly ok: false; readonly refusal: "UNAVAILABLE"; readonly message: string };

export type { ApprovalWatch } from "./durable-approval-watch.js";

/** Options of {@link ApproverClient.watch}. */
export interface WatchApprovalsOptions {
  /**
   * Deliver durably under this name (a safe token, e.g. `"phone"`): the approver service keeps
   * where this person's `<durable>` stands, so an app that restarts gets the requests made while it
   * was down, then new ones. Only requests this person may decide that are still open are
   * delivered, oldest first, at least once. Without it, the watch sees requests only while it runs.
   */
  readonly durable?: string;
}

/** Options of {@link createApproverClient}. */
/** How a grant is given: a reason for the record, and edited args to run instead of the requested ones. */
export interface ApproveOptions {
  readonly reason?: string;
  /**
   * Grant these args instead (re-validated against the tool's schema; refused `INVALID_ARGS` when
   * they do not fit). The grant binds their hash; the request keeps the original; the executor
   * runs these.
   */
  readonly args?: JsonValue;
  /**
   * Also grant for the session: later calls of the same principal, mode and tool version whose
   * args meet `args` (by top-level name: `{ equals }`, `{ oneOf }`, `{ prefix }`, `{ min }`,
   * `{ max }`) run without asking, for `ttlSeconds` or until revoked. Refused
   * `SESSION_NOT_ALLOWED` where the policy document does not allow it (by default: writes only,
   * an hour at most, never a call that needs a quorum).
   */
  readonly session?: SessionGrantRequest;
}

export interface ApproverClientOptions {
  /** A connection made with the approver's own credentials (`.warden/identities/<approver>/nats.creds`). */
  readonly bus: Bus;
  /**
   * The deciding person; the second token of `warden.decide.<approver>.<approvalId>`, which the
   * server lets only that identity publish on. A safe token (`^[A-Za-z0-9_-]{1,128}$`).
   */
  readonly approver: string;
  /**
   * How long `pending`, `approve` and `deny` wait for the approver service.
   * @default 5_000
   */
  readonly timeoutMs?: number;
}

/** What {@link createApproverClient} returns: one person's inbox and decisions. */
export interface ApproverClient {
  readonly approver: string;
  /**
   * The approvals this person may decide now, read from the stream's ApprovalRequested events
   * (args re-hashed), each with `argsHash` and `argsPreview`. Errors: `INVALID_REQUEST` (the
   * approver is not a safe token), `UNAVAILABLE` (no approver service answered), `FORBIDDEN`
   * (the connection is another identity), `INTERNAL` (an unexpected reply).
   */
  pending(): Promise<Outcome<PendingApproval[]>>;
  /**
   * Every new approval request this person may decide, as the approver service makes it (not the
   * ones already pending: call `pending()` for those), on `warden.approver.notify.<approver>.*`,
   * which the server lets only this person receive: a cue to refresh `pending()`, not an inbox
   * (at most once; a request made while nobody watched is not told again). Unreadable messages are
   * skipped. With `durable`, an inbox that survives restarts: see {@link WatchApprovalsOptions.durable}.
   * @example
   * ```ts
   * const watch = approver.watch();
   * for await (const req of watch) notify(req.data.approvalId); // then read pending()
   * // elsewhere: watch.stop();
   * for await (const req of approver.watch({ durable: "phone" })) push(req); // resumes after a restart
   * ```
   */
  watch(options?: WatchApprovalsOptions): ApprovalWatch;
  /**
   * Grants an approval. `argsHash` must be the one the approver was shown (from `pending()`), so
   * a decision never covers args the person did not see. Never throws: see {@link DecisionOutcome}.
   */
  approve(approvalId: string, argsHash: string, reason?: string | ApproveOptions): Promise<DecisionOutcome>;
  /** Denies an approval; the caller's call ends `denied` with `APPROVAL_DENIED` and the reason. */
  deny(approvalId: string, argsHash: string, reason: string): Promise<DecisionOutcome>;
  /** The session grants in force that this person made (an operator: every one), oldest first. Errors as {@link pending}. */
  sessions(): Promise<Outcome<SessionGrantView[]>>;
  /** The approvals this person granted (alone or in a quorum) or denied, newest first (the last 50). Errors as {@link pending}. */
  decided(): Promise<Outcome<DecidedApproval[]>>;
  /** Revokes a session grant this person made (an operator: any), by its id (the call it was granted on). See {@link revokeSessionGrant}. */
  revokeSession(grantId: string, reason?: string): Promise<CancelOutcome>;
}

const PendingListSchema = z.array(PendingApprovalSchema);
const SessionListSchema = z.array(SessionGrantViewSchema);
const DecidedListSchema = z.array(DecidedApprovalSchema);

/**
 * A person's approval client: the inbox of what they may decide, and their grants and denials,
 * over the approver service's request-reply subjects.
 *
 * @example
 * ```ts
 * // NATS_CREDS=.warden/identities/alice/nats.creds
 * const bus = await connectBus(loadBusConfig(process.env), "alice-inbox");
 * const approver = createApproverClient({ bus, approver: "alice" });
 * const inbox = await approver.pending();
 * if (inbox.ok) {
 *   for (const a of inbox.value) {
 *     const d = await approver.approve(a.approvalId, a.argsHash);
 *     if (!d.ok) console.warn(a.approvalId, d.refusal, d.message); // e.g. EXPIRED, ALREADY_DECIDED
 *   }
 * }
 * ```
 */
export function createApproverClient(options: ApproverClientOptions): ApproverClient {
  const { bus, approver } = options;
  const timeoutMs = options.timeoutMs ?? RPC_TIMEOUT_MS;

  async function decide(approvalId: string, request: DecisionRequest): Promise<DecisionOutcome> {
    if (!isSafeToken(approver) || !isSafeToken(approvalId)) {
      return { ok: false, refusal: "MALFORMED", message: "approver and approvalId must be safe tokens (^[A-Za-z0-9_-]{1,128}$)" };
    }
    const reply = await requestRpc(bus, decideSubject(approver, approvalId), request, timeoutMs);
    if (reply.ok) {
      const parsed = DecisionReplySchema.safeParse(reply.value);
      return parsed.success ? parsed.data : { ok: false, refusal: "MALFORMED", message: "unexpected decision reply" };
    }
    return refusalFromError(reply.error);
  }

  /** One of the lists `warden.approver.pending.<approver>` answers, checked against its schema. */
  async function listed<T>(request: PendingRequest, schema: z.ZodType<T>, what: string): Promise<Outcome<T>> {
    if (!isSafeToken(approver)) return fail("INVALID_REQUEST", "the approver must be a safe token (^[A-Za-z0-9_-]{1,128}$)");
    const reply = await requestRpc(bus, approverPendingSubject(approver), request, timeoutMs);
    if (!reply.ok) return reply;
    const parsed = schema.safeParse(reply.value);
    return parsed.success ? ok(parsed.data) : fail("INTERNAL", `unexpected ${what} reply`);
  }

  return {
    approver,
    pending: () => listed({}, PendingListSchema, "pending approvals"),
    watch(options = {}) {
      return options.durable === undefined ? watchNotices(bus, approver) : watchDurably(bus, approver, options.durable);
    },
    approve(approvalId, argsHash, options) {
      const o: ApproveOptions = typeof options === "string" ? { reason: options } : (options ?? {});
      return decide(approvalId, {
        decision: "grant",
        argsHash,
        ...(o.reason === undefined ? {} : { reason: o.reason }),
        ...(o.args === undefined ? {} : { args: o.args }),
        ...(o.session === undefined ? {} : { session: o.session }),
      });
    },
    deny(approvalId, argsHash, reason) {
      return decide(approvalId, { decision: "deny", argsHash, reason });
    },
    sessions: () => listed({ list: "sessions" }, SessionListSchema, "session grants"),
    decided: () => listed({ list: "decided" }, DecidedListSchema, "decided approvals"),
    revokeSession(grantId, reason) {
      return revokeSessionGrant(bus, approver, grantId, reason, timeoutMs);
    },
  };
}

/** A refusal may come back as an error reply; its `details.refusal` keeps the reason code. */
function refusalFromError(error: WardenError): DecisionOutcome {
  const refusal = error.details?.["refusal"];
  if (typeof refusal === "string" && (DECISION_REFUSALS as readonly string[]).includes(refusal)) {
    return { ok: false, refusal: refusal as (typeof DECISION_REFUSALS)[number], message: error.message };
  }
  if (error.code === "UNAVAILABLE") return { ok: false, refusal: "UNAVAILABLE", message: error.message };
  // the server refused the request: this connection's identity may not decide as that approver
  if (error.code === "FORBIDDEN") return { ok: false, refusal: "NOT_AUTHORISED", message: error.message };
  return { ok: false, refusal: "MALFORMED", message: `${error.code}: ${error.message}` };
}

/** The approver service's notices of new requests this person may decide (plain NATS: a cue, at most once). */
function watchNotices(bus: Bus, approver: string): ApprovalWatch {
  if (!isSafeToken(approver)) {
    return { [Symbol.asyncIterator]: () => (async function* () {})(), stop: () => undefined, error: wardenError("INVALID_REQUEST", "the approver must be a safe token (^[A-Za-z0-9_-]{1,128}$)") };
  }
  const sub = bus.nc.subscribe(approverNotifyFilter(approver));
  async function* events(): AsyncGenerator<ApprovalRequested> {
    for await (const msg of sub) {
      // whatever arrives that is not a request named by its subject (too large or deep, not JSON) is skipped
      const json = parseJsonGuarded(msg.data, { maxBytes: MAX_EVENT_BYTES });
      const parsed = json.ok ? validateEventJson(json.value) : undefined;
      if (parsed?.ok && parsed.value.type === "ApprovalRequested" && parsed.value.data.approvalId === lastSubjectToken(msg.subject)) yield parsed.value;
    }
  }
  const iterator = events();
  return {
    [Symbol.asyncIterator]: () => iterator,
    stop: () => sub.unsubscribe(),
    error: undefined,
  };
}
