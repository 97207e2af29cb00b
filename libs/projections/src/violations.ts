import { z } from "zod";
import { EventTypeSchema } from "@warden/contracts/events";
import { CALL_VIOLATION_KINDS } from "@warden/contracts/read-models";

// the kinds live in @warden/contracts, so that @warden/testing (which this package's tests use)
// crafts a stream for each without importing this package
export { AUDIT_VIOLATION_KINDS, CALL_VIOLATION_KINDS, type AuditViolationKind, type CallViolationKind } from "@warden/contracts/read-models";

export const ViolationSchema = z.object({
  kind: z.enum(CALL_VIOLATION_KINDS),
  seq: z.int().nonnegative(),
  eventId: z.string(),
  type: EventTypeSchema,
  detail: z.string(),
});
export type Violation = z.infer<typeof ViolationSchema>;
