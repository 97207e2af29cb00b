import { type ToolCallRequested } from "@warden/contracts/events";
import { type ToolDescriptorInput, type ToolRecord, type ToolStatus } from "@warden/contracts/descriptor";
import { requestedCall, toolRecordOf } from "@warden/testing";

/** A description fit for a write or send tool: says what it changes. */
export const SIDE_EFFECTS = "Use when the change is wanted; it changes what others see later.";

/** Test fixtures: descriptors, records and requests with sensible defaults. */
export function descriptor(overrides: Partial<ToolDescriptorInput> = {}): ToolDescriptorInput {
  return {
    name: "kb.search",
    version: "1.0.0",
    title: "Search the knowledge base",
    description: "Use when the customer asks a question the help articles may answer.",
    inputSchema: {
      type: "object",
      required: ["query"],
      additionalProperties: false,
      properties: { query: { type: "string", minLength: 1 }, limit: { type: "integer", minimum: 1, maximum: 20 } },
    },
    grade: "read",
    idempotent: true,
    ...overrides,
  };
}

export function record(overrides: Partial<ToolDescriptorInput> = {}, status: ToolStatus = "enabled"): ToolRecord {
  return toolRecordOf(descriptor(overrides), { status, at: "2025-01-01T00:00:00.000Z" });
}

export function request(overrides: Partial<ToolCallRequested> & { args?: unknown; version?: string } = {}): ToolCallRequested {
  const { args, version, data, ...rest } = overrides;
  return requestedCall({
    ...rest,
    data: data ?? { args: (args ?? { query: "refund" }) as ToolCallRequested["data"]["args"], ...(version === undefined ? {} : { version }) },
  });
}
