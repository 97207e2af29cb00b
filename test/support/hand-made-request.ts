import type { CallMode } from "@warden/contracts/descriptor";
import { newId, type ToolCallRequested } from "@warden/contracts/events";
import { requestedCall } from "@warden/testing";

export interface HandMadeRequest {
  readonly tool: string;
  readonly principal: string;
  /** @default a new id */
  readonly callId?: string;
  readonly mode: CallMode;
  /** The run it names (`correlationId`). @default a new id */
  readonly runId?: string;
  /** Over `{ args: {}, scope: null, flags: {} }`. */
  readonly data?: Partial<ToolCallRequested["data"]>;
}

/**
 * A ToolCallRequested written out as a caller's SDK writes it, for a test that appends or publishes
 * it itself, in the domain its tool names. Nothing checks it: a test may make it wrong on purpose.
 */
export function handMadeRequest(o: HandMadeRequest): ToolCallRequested {
  return requestedCall({
    callId: o.callId ?? newId(),
    domain: o.tool.slice(0, o.tool.indexOf(".")),
    tool: o.tool,
    principal: o.principal,
    mode: o.mode,
    correlationId: o.runId ?? newId(),
    ...(o.data === undefined ? {} : { data: o.data }),
  });
}
