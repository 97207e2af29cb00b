import { EVENT_SCHEMA_VERSION, type ToolCallRequested } from "../src/events.js";
import { newId } from "../src/ids.js";

/**
 * A call's first event, written by nobody: alice's model asks kb.search, first of run-1, at the
 * epoch; `overrides` set what a test is about (its mode, ids, args).
 */
export function requestedEvent(overrides: Partial<ToolCallRequested> = {}): ToolCallRequested {
  return {
    v: EVENT_SCHEMA_VERSION,
    type: "ToolCallRequested",
    eventId: newId(),
    callId: newId(),
    domain: "kb",
    tool: "kb.search",
    principal: "alice",
    mode: "llm",
    ts: new Date(0).toISOString(),
    causationId: null,
    causeHash: null,
    correlationId: "run-1",
    data: { args: { q: "x" }, scope: null, flags: {} },
    ...overrides,
  };
}
