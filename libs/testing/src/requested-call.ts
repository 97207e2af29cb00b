import { EVENT_SCHEMA_VERSION, newId, type ToolCallRequested } from "@warden/contracts/events";

export type RequestedCallOverrides = Omit<Partial<ToolCallRequested>, "data"> & { readonly data?: Partial<ToolCallRequested["data"]> };

/**
 * A ToolCallRequested written out as a caller's SDK writes it, checked by nobody (a test may make
 * it wrong on purpose): alice's model asks kb.search in run-1, now. `overrides` set what a test is
 * about; their `data` is laid over `{ args: {}, scope: null, flags: {} }`.
 */
export function requestedCall(overrides: RequestedCallOverrides = {}): ToolCallRequested {
  const { data, ...envelope } = overrides;
  return {
    v: EVENT_SCHEMA_VERSION,
    type: "ToolCallRequested",
    eventId: newId(),
    callId: newId(),
    domain: "kb",
    tool: "kb.search",
    principal: "alice",
    mode: "llm",
    ts: new Date().toISOString(),
    causationId: null,
    causeHash: null,
    correlationId: "run-1",
    ...envelope,
    data: { args: {}, scope: null, flags: {}, ...data },
  };
}
