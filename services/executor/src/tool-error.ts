import type { WardenError } from "@warden/contracts";

/**
 * Thrown by a handler to fail its call with a chosen error value (code, retryable, details)
 * instead of the generic HANDLER_ERROR: an adapter's exit code or HTTP status, for example.
 */
export class ToolError extends Error {
  override readonly name = "ToolError";
  constructor(readonly error: WardenError) {
    super(error.message);
  }
}
