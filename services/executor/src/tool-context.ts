import type { Logger } from "@warden/bus";
import type { CallMode } from "@warden/contracts";

/** What a handler gets besides its args. */
export interface ToolContext {
  /** Aborted when the call times out; a handler should stop its work and return. */
  readonly signal: AbortSignal;
  readonly callId: string;
  readonly principal: string;
  readonly mode: CallMode;
  readonly correlationId: string;
  /** 1 normally; 2+ when an idempotent tool is re-run after a crash. */
  readonly attempt: number;
  readonly log: Logger;
}
