import type { CallMode } from "@warden/contracts/descriptor";
import type { CallModel } from "./call-model.js";
import type { CallState } from "./call-state.js";

/** Who called which tool, in which run, and where the call stands: what an audit row and a trace both begin with after the call's id. */
export interface CallHeading {
  readonly domain: string;
  readonly tool: string;
  readonly principal: string;
  readonly mode: CallMode;
  readonly correlationId: string;
  readonly parentCallId?: string;
  readonly status: CallState;
}

export function callHeading(m: CallModel): CallHeading {
  return {
    domain: m.domain,
    tool: m.tool,
    principal: m.principal,
    mode: m.mode,
    correlationId: m.correlationId,
    ...(m.parentCallId === undefined ? {} : { parentCallId: m.parentCallId }),
    status: m.status,
  };
}
