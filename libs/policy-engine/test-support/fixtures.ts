import { kbSearchDescriptor, toolRecordOf } from "@warden/testing";
import {
  ToolDescriptorSchema,
  type Grade,
  type ToolDescriptor,
  type ToolDescriptorInput,
  type ToolRecord,
  type ToolStatus,
} from "@warden/contracts/descriptor";

/** Test fixtures: the usual kb.search (of one query, no limit), and its registry record. */
export function descriptor(overrides: Partial<ToolDescriptorInput> = {}): ToolDescriptorInput {
  return kbSearchDescriptor({ inputSchema: { type: "object", required: ["query"], properties: { query: { type: "string", minLength: 1 } } }, ...overrides });
}

export function record(overrides: Partial<ToolDescriptorInput> = {}, status: ToolStatus = "enabled"): ToolRecord {
  return toolRecordOf(descriptor(overrides), { status, at: "2025-01-01T00:00:00.000Z" });
}

/** A tool that is only its name and grade (no flags, scopes or level), unless `overrides` add them. */
export function gradedTool(name: string, grade: Grade, overrides: Partial<ToolDescriptorInput> = {}): ToolDescriptor {
  return ToolDescriptorSchema.parse({
    name,
    version: "1.0.0",
    title: name,
    description: "Use it when the test needs a tool of this grade.",
    inputSchema: { type: "object" },
    grade,
    ...overrides,
  });
}
