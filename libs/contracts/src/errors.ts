import { z } from "zod";

/** Every error code that crosses a boundary, and whether retrying the same thing may succeed. */
export const ERROR_CODES = {
  UNKNOWN_TOOL: { retryable: false },
  INVALID_ARGS: { retryable: false },
  TOOL_DISABLED: { retryable: false },
  INVALID_REQUEST: { retryable: false },
  PAYLOAD_TOO_LARGE: { retryable: false },
  PRINCIPAL_MISMATCH: { retryable: false },
  /** The authenticated identity may not do this (another principal's call, another domain's tools). */
  FORBIDDEN: { retryable: false },
  DUPLICATE_CALL_ID: { retryable: false },
  POLICY_DENIED: { retryable: false },
  BUDGET_EXCEEDED: { retryable: false },
  /** The principal's (or principal and tool's) token bucket is empty: `details.retryAfterMs` says when to ask again. */
  RATE_LIMITED: { retryable: true },
  /** The requester has as many open approvals as the policy document allows; one must be decided or expire first. */
  APPROVAL_QUOTA: { retryable: true },
  APPROVAL_DENIED: { retryable: false },
  APPROVAL_EXPIRED: { retryable: false },
  /** The call was cancelled by its requester or an operator before it started; it never ran. */
  CANCELLED: { retryable: false },
  GRANT_INVALID: { retryable: false },
  /** The session grant that granted the call was revoked before the call ran; it did not run. */
  GRANT_REVOKED: { retryable: false },
  DESCRIPTOR_CHANGED: { retryable: false },
  /**
   * An L5 call's dry run, run again by the executor right before the call, no longer says what the
   * people who approved it saw (its hash differs from the grant's `previewHash`): it did not run.
   */
  PREVIEW_CHANGED: { retryable: false },
  HANDLER_ERROR: { retryable: true },
  TIMEOUT: { retryable: true },
  OUTPUT_TOO_LARGE: { retryable: false },
  OUTPUT_INVALID: { retryable: false },
  /** The tool ran, but its own `verify(output, args)` check says the result is wrong. */
  VERIFY_FAILED: { retryable: false },
  /** The tool's own `preCall` check refused the call right before its handler (the reason is in the message): it did not run. */
  PRECALL_REFUSED: { retryable: false },
  /**
   * The tool acts with the credentials of the principal the call runs for (a secret bound to the
   * principal), and that principal has none: it did not run. The message names the secret and the
   * principal, never a value; another principal's or the executor's credential is never used instead.
   */
  CREDENTIAL_UNAVAILABLE: { retryable: false },
  /** The tool runs others' code and this machine cannot confine it (no bubblewrap or user namespaces); only a tool marked trusted runs unconfined. */
  SANDBOX_UNAVAILABLE: { retryable: false },
  OUTCOME_UNKNOWN: { retryable: false },
  /** The executor's claim ran out before the tool started (the executor was paused): it did not run. */
  CLAIM_EXPIRED: { retryable: true },
  CONFIRMATION_REQUIRED: { retryable: false },
  /** The call cannot be undone: its tool declares no compensation, it did not succeed, or it was undone already. */
  NOT_UNDOABLE: { retryable: false },
  WAIT_TIMEOUT: { retryable: true },
  NOT_FOUND: { retryable: false },
  DECISION_REFUSED: { retryable: false },
  REGISTRATION_CONFLICT: { retryable: false },
  /** The policy document in force changed after it was read (another author's change): read it again. */
  POLICY_CONFLICT: { retryable: true },
  DESCRIPTOR_INVALID: { retryable: false },
  UNAVAILABLE: { retryable: true },
  INTERNAL: { retryable: true },
} as const satisfies Record<string, { retryable: boolean }>;

export type ErrorCode = keyof typeof ERROR_CODES;
export const ErrorCodeSchema = z.enum(Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]]);

export const WardenErrorSchema = z.object({
  code: ErrorCodeSchema,
  message: z.string(),
  retryable: z.boolean(),
  details: z.record(z.string(), z.json()).optional(),
});
export type WardenError = z.infer<typeof WardenErrorSchema>;

export function wardenError(
  code: ErrorCode,
  message: string,
  details?: Record<string, z.infer<ReturnType<typeof z.json>>>,
): WardenError {
  return details === undefined
    ? { code, message, retryable: ERROR_CODES[code].retryable }
    : { code, message, retryable: ERROR_CODES[code].retryable, details };
}

/** A value that is either a success or a structured error; crossing a boundary never throws. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: WardenError };

export function ok<T>(value: T): Outcome<T> {
  return { ok: true, value };
}

export function fail<T = never>(code: ErrorCode, message: string, details?: WardenError["details"]): Outcome<T> {
  return { ok: false, error: wardenError(code, message, details) };
}
