import type { Logger } from "@warden/bus";
import type { CallMode } from "@warden/contracts/descriptor";
import type { ToolEffects } from "./tool-effects.js";
import type { ToolSecrets } from "./tool-secrets.js";

/** What a handler gets besides its args (the second argument of `defineTool`'s handler). */
export interface ToolContext {
  /**
   * Aborted when the call times out (the tool's `timeoutMs`); a handler should stop its work and
   * return (pass it to `fetch`, child processes, …). The call has failed with `TIMEOUT` by then.
   */
  readonly signal: AbortSignal;
  /** The call's id, as in `warden trace <callId>`. */
  readonly callId: string;
  /** Who asked for the call (the identity the server authenticated). */
  readonly principal: string;
  /**
   * The principal the call runs for: `principal`, or for a subagent's child call the principal at
   * the top of its delegation chain (as the policy stage checked it). Secrets bound to the
   * principal give this principal's credential.
   */
  readonly onBehalfOf: string;
  /** `human`, `plan` or `llm`: who decided to make the call. */
  readonly mode: CallMode;
  /** The id of the run the call belongs to (the caller's runId). */
  readonly correlationId: string;
  /** 1 normally; 2+ when an idempotent tool is re-run after a crash. */
  readonly attempt: number;
  /** A logger bound to the call (its callId, tool and attempt). */
  readonly log: Logger;
  /**
   * The executor's secrets (`startExecutor({ secrets })`), read when asked: `await
   * ctx.secrets.get("stripe_key")`. What the handler returns or throws is redacted of every value
   * it asked for, in the encodings the Redactor covers, before it is recorded. Redaction is a
   * net, not a wall: give the executor scoped, short-lived credentials.
   */
  readonly secrets: ToolSecrets;
  /**
   * Where the run tells what it touched, for the audit (ToolCallFinished's `effectsObserved`,
   * shown by `warden trace`): `ctx.effects.read("invoices/INV-1")`, `.wrote(target)`,
   * `.called("POST https://api.example.com/v1/refunds")`. Never a query string or a secret.
   */
  readonly effects: ToolEffects;
}
