/** @warden/contracts/errors: error codes, whether each is retryable, and wardenError. */
export {
  ERROR_CODES,
  type ErrorCode,
  ErrorCodeSchema,
  fail,
  ok,
  type Outcome,
  wardenError,
  type WardenError,
  WardenErrorSchema,
} from "../errors.js";
