import { z } from "zod";
import { ApprovalRequestedSchema } from "./events.js";

/** The longest a delivery request may wait for a new approval request to arrive. */
export const MAX_DELIVERY_WAIT_MS = 30_000;
export const MAX_DELIVERY_BATCH = 100;

/**
 * A request on `warden.approver.deliver.<approver>.<durable>`: acknowledge what the app has
 * handled (`ack`, a stream sequence from an earlier reply; the approver keeps the highest) and ask
 * for what comes after it, waiting up to `waitMs` for something new.
 */
export const DeliveryRequestSchema = z.strictObject({
  ack: z.number().int().min(0).optional(),
  waitMs: z.number().int().min(0).max(MAX_DELIVERY_WAIT_MS).default(0),
  max: z.number().int().min(1).max(MAX_DELIVERY_BATCH).default(20),
});
export type DeliveryRequest = z.infer<typeof DeliveryRequestSchema>;
export type DeliveryRequestInput = z.input<typeof DeliveryRequestSchema>;

/**
 * The approval requests after the durable's acknowledged position that this person may decide and
 * that are still open, oldest first, each with its stream sequence (what to `ack`); `cursor` is
 * the position acknowledged so far.
 */
export const DeliveryReplySchema = z.object({
  cursor: z.number().int().min(0),
  deliveries: z.array(z.object({ seq: z.number().int().min(1), request: ApprovalRequestedSchema })),
});
export type DeliveryReply = z.infer<typeof DeliveryReplySchema>;

/** What `warden_approver_cursors` holds for one durable delivery. */
export const DeliveryCursorSchema = z.object({ seq: z.number().int().min(0), at: z.iso.datetime() });
export type DeliveryCursor = z.infer<typeof DeliveryCursorSchema>;
