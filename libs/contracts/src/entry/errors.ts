/** @warden/contracts/errors: error codes, whether each is retryable, and wardenError. */
export {
  ERROR_CODES,
  ErrorCodeSchema,
  fail,
  ok,
  wardenError,
  WardenErrorSchema,
  type ErrorCode,
  type Outcome,
  type WardenError,
} from "../errors.js";
