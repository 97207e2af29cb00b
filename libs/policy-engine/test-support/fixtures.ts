import {
  descriptorHash,
  ToolDescriptorSchema,
  type Grade,
  type ToolDescriptor,
  type ToolDescriptorInput,
  type ToolRecord,
  type ToolStatus,
} from "@warden/contracts/descriptor";

/** Test fixtures: a descriptor and its registry record, with sensible defaults. */
export function descriptor(overrides: Partial<ToolDescriptorInput> = {}): ToolDescriptorInput {
  return {
    name: "kb.search",
    version: "1.0.0",
    title: "Search the knowledge base",
    description: "Use when the customer asks a question the help articles may answer.",
    inputSchema: { type: "object", required: ["query"], properties: { query: { type: "string", minLength: 1 } } },
    grade: "read",
    idempotent: true,
    ...overrides,
  };
}

export function record(overrides: Partial<ToolDescriptorInput> = {}, status: ToolStatus = "enabled"): ToolRecord {
  const d = ToolDescriptorSchema.parse(descriptor(overrides));
  const at = "2025-01-01T00:00:00.000Z";
  return { descriptor: d, descriptorHash: descriptorHash(d), status, registeredAt: at, statusChangedAt: at };
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
