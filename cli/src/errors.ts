import type { ErrorCode } from "@warden/contracts/errors";

/**
 * Exit codes: 1 for a refusal, a failed call or bad usage; 2 when NATS cannot be reached; 3 when a
 * call waits for a person (not a failure: a script goes on once someone decides).
 */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_UNREACHABLE = 2;
export const EXIT_PENDING = 3;

/** An expected way for a command to end badly; main prints it as one line (or one JSON document). */
export class CliError extends Error {
  override readonly name = "CliError";
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly exitCode: number = EXIT_FAILED,
  ) {
    super(message);
  }
}

export function usageError(message: string): CliError {
  return new CliError("INVALID_REQUEST", message, EXIT_FAILED);
}
