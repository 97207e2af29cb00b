import type { WardenError } from "@warden/contracts/errors";

/**
 * Thrown by a handler to fail its call with a chosen error value (code, retryable, details)
 * instead of the generic HANDLER_ERROR: an adapter's exit code or HTTP status, for example.
 * The caller gets `status: "failed"` with exactly this `error`, so a model can correct itself
 * from the message. Codes come from `ERROR_CODES` of `@warden/contracts`; build the value with
 * `wardenError(code, message, details?)`, which sets `retryable` from the code.
 *
 * @example
 * ```ts
 * import { wardenError } from "@warden/contracts/errors";
 * throw new ToolError(wardenError("NOT_FOUND", `no invoice ${invoiceId}`));
 * throw new ToolError(wardenError("INVALID_ARGS", "the date is in the past", { field: "date" }));
 * ```
 */
export class ToolError extends Error {
  override readonly name = "ToolError";
  constructor(readonly error: WardenError) {
    super(error.message);
  }
}
