import { z } from "zod";
import { WardenEventSchema } from "./events.js";
import { CallModeSchema } from "./grades.js";
import { TokenSchema } from "./tokens.js";

/** The most calls one list answers (the newest). */
export const OWN_CALLS_LIMIT = 100;

/**
 * `warden.registry.calls.<principal>`: a person's own calls (those whose request carries their
 * name and that the registry answered as theirs), the same calls `warden.calls.<principal>._.<id>`
 * reads one by one. `list`: the newest first; `trace`: one call's every event, for its timeline.
 */
export const OwnCallsRequestSchema = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("list"), limit: z.int().min(1).max(OWN_CALLS_LIMIT).default(50) }),
  z.strictObject({ kind: z.literal("trace"), callId: TokenSchema }),
]);
export type OwnCallsRequest = z.infer<typeof OwnCallsRequestSchema>;
export type OwnCallsRequestInput = z.input<typeof OwnCallsRequestSchema>;

/** One row of the list: the call as the projector last folded it (`requested` until it has). */
export const OwnCallSchema = z.object({
  callId: z.string(),
  domain: z.string(),
  tool: z.string(),
  principal: z.string(),
  mode: CallModeSchema,
  /** The request's stream sequence: the list's order, newest first. */
  seq: z.int(),
  requestedAt: z.string(),
  /** A call state of `@warden/projections` (`succeeded`, `awaiting_approval`, …). */
  status: z.string(),
  /** From the request to the call's last event so far. */
  durationMs: z.number(),
  /** The args as JSON, cut (whatever the caller wrote: show it as text). */
  argsPreview: z.string(),
  /** Who decided its approval, when one did. */
  approver: z.string().optional(),
  /** Why it was refused or failed. */
  error: z.object({ code: z.string(), message: z.string() }).optional(),
});
export type OwnCall = z.infer<typeof OwnCallSchema>;

export const OwnCallListSchema = z.object({
  calls: z.array(OwnCallSchema),
  /** How many requests of this person the stream holds (the list shows the newest `limit`). */
  total: z.int(),
});
export type OwnCallList = z.infer<typeof OwnCallListSchema>;

/**
 * One call's events in stream order, with their sequences (a trace's), as its requester may see
 * them: another principal's request under the same id is left out, and the approval card's dry
 * run, shown to the people deciding, is removed (as `warden.calls` reads do).
 */
export const OwnCallTraceSchema = z.object({
  entries: z.array(z.object({ seq: z.int(), event: WardenEventSchema })),
});
export type OwnCallTrace = z.infer<typeof OwnCallTraceSchema>;
