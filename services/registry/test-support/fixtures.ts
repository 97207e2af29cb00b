import { type ToolCallRequested } from "@warden/contracts/events";
import { type ToolDescriptorInput, type ToolRecord, type ToolStatus } from "@warden/contracts/descriptor";
import { kbSearchDescriptor, requestedCall, toolRecordOf } from "@warden/testing";

/** A description fit for a write or send tool: says what it changes. */
export const SIDE_EFFECTS = "Use when the change is wanted; it changes what others see later.";

/** Test fixtures: descriptors, records and requests with sensible defaults. */
export const descriptor = kbSearchDescriptor;

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
