import { fail, ok, type Outcome, type WardenError } from "@warden/contracts/errors";
import { SessionGrantRequestSchema } from "@warden/contracts/policy";
import { JsonValueSchema, validateJson } from "@warden/contracts/json";
import type { ApproverClient, DecisionOutcome } from "@warden/sdk";
import { z } from "zod";

/**
 * The one module that maps what a person does on the page to approver-client calls. The page
 * draws a button (and its key) for each {@link InboxActionSpec} the server advertises, and posts
 * `{ kind, approvalId, argsHash, reason?, args? }`; a new decision (approve with edited args,
 * approve for the session) is a new schema variant, a spec and a case in `run` here — the page
 * already knows how to ask for a reason or edited args.
 */

const REASON_MAX = 2_000;
const Id = z.string().min(1).max(128);
const Reason = z.string().trim().max(REASON_MAX);

export const InboxActionSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("approve"), approvalId: Id, argsHash: z.string().min(1).max(200), reason: Reason.optional() }),
  z.object({ kind: z.literal("deny"), approvalId: Id, argsHash: z.string().min(1).max(200), reason: Reason.min(1, "a denial needs a reason") }),
  // the args the person edited: the approver re-validates them against the tool's schema and signs their hash
  z.object({ kind: z.literal("approve-edited"), approvalId: Id, argsHash: z.string().min(1).max(200), args: JsonValueSchema, reason: Reason.optional() }),
  // the approver checks the session against its policy document and the granted args
  z.object({ kind: z.literal("approve-session"), approvalId: Id, argsHash: z.string().min(1).max(200), session: SessionGrantRequestSchema, reason: Reason.optional() }),
  z.object({ kind: z.literal("revoke-session"), grantId: Id, reason: Reason.optional() }),
]);
export type InboxAction = z.infer<typeof InboxActionSchema>;
export type InboxActionKind = InboxAction["kind"];

/** What the page needs to draw one action: its label, key, look, and what it asks the person for. */
export interface InboxActionSpec {
  readonly kind: string;
  readonly label: string;
  /** The keyboard shortcut on the selected card. */
  readonly key: string;
  readonly tone: "approve" | "deny" | "neutral";
  /**
   * `reason`: a reason is required; `optional-reason`: offered; `args`: the args, editable as JSON,
   * and an optional reason; `session`: how long, and which of the args later calls must keep.
   */
  readonly asks: "reason" | "optional-reason" | "args" | "session";
}

/** A decision the approver service recorded, or a session grant it revoked (`callId` is then the grant's id). */
export interface ActionDone {
  readonly kind: string;
  /** Absent for a revoke (it names a session grant, not an approval). */
  readonly approvalId?: string;
  readonly callId: string;
  readonly decision: "grant" | "deny" | "revoke-session";
  /** The reason or note the person gave, for the page's history. */
  readonly reason: string | null;
}

/** What the server asks of the actions: what to draw, and to carry out a posted body (validated here, not by the server). */
export interface InboxActions {
  readonly specs: readonly InboxActionSpec[];
  run(body: unknown): Promise<Outcome<ActionDone>>;
}

const SPECS: readonly InboxActionSpec[] = [
  { kind: "approve", label: "Approve", key: "a", tone: "approve", asks: "optional-reason" },
  { kind: "deny", label: "Deny", key: "d", tone: "deny", asks: "reason" },
  { kind: "approve-edited", label: "Edit and approve", key: "e", tone: "approve", asks: "args" },
  { kind: "approve-session", label: "Approve for session", key: "s", tone: "approve", asks: "session" },
];

/** The decisions the approver client offers: grant, deny, grant with edited args; each echoes the argsHash the person saw. */
export function approverActions(client: Pick<ApproverClient, "approve" | "deny" | "revokeSession">): InboxActions {
  return {
    specs: SPECS,
    async run(body) {
      const parsed = validateJson(InboxActionSchema, body);
      if (!parsed.ok) return fail("INVALID_REQUEST", `not an action: ${parsed.reason}`, { reason: parsed.code });
      const action = parsed.value;
      const reason = action.reason || null;
      switch (action.kind) {
        case "approve":
          return outcomeOf(action.kind, reason, await client.approve(action.approvalId, action.argsHash, reason ?? undefined));
        case "deny":
          return outcomeOf(action.kind, reason, await client.deny(action.approvalId, action.argsHash, action.reason));
        case "approve-edited":
          return outcomeOf(action.kind, reason, await client.approve(action.approvalId, action.argsHash, { args: action.args, ...(reason === null ? {} : { reason }) }));
        case "approve-session":
          return outcomeOf(action.kind, reason, await client.approve(action.approvalId, action.argsHash, { session: action.session, ...(reason === null ? {} : { reason }) }));
        case "revoke-session": {
          const r = await client.revokeSession(action.grantId, reason ?? undefined);
          if (r.ok) return ok({ kind: action.kind, callId: r.callId, decision: "revoke-session", reason });
          if (r.refusal === "UNAVAILABLE") return fail("UNAVAILABLE", r.message, { refusal: r.refusal });
          if (r.refusal === "NOT_FOUND") return fail("NOT_FOUND", r.message, { refusal: r.refusal });
          return fail("DECISION_REFUSED", r.message, { refusal: r.refusal });
        }
      }
    },
  };
}

/** A decision's refusal as the CLI reports it: an unknown approval is NOT_FOUND, the rest DECISION_REFUSED with the refusal kept. */
function outcomeOf(kind: string, reason: string | null, d: DecisionOutcome): Outcome<ActionDone> {
  if (d.ok) return ok({ kind, approvalId: d.approvalId, callId: d.callId, decision: d.decision, reason });
  if (d.refusal === "UNAVAILABLE") return fail("UNAVAILABLE", d.message, { refusal: d.refusal });
  if (d.refusal === "UNKNOWN_APPROVAL") return fail("NOT_FOUND", d.message, { refusal: d.refusal });
  return fail("DECISION_REFUSED", d.message, { refusal: d.refusal });
}

/** The HTTP status of an action's error. */
export function statusOfError(error: WardenError): number {
  switch (error.code) {
    case "NOT_FOUND":
      return 404;
    case "DECISION_REFUSED":
      return 409;
    case "UNAVAILABLE":
      return 503;
    case "INTERNAL":
      return 500;
    case "FORBIDDEN":
      return 403;
    case "PAYLOAD_TOO_LARGE":
      return 413;
    default:
      return 400;
  }
}
