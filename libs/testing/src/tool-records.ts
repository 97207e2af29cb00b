import { kvPutJson, type Bus } from "@warden/bus";
import { BUCKET_TOOLS, toolKey } from "@warden/contracts/subjects";
import { descriptorHash, ToolDescriptorSchema, type ToolDescriptorInput, type ToolRecord, type ToolStatus } from "@warden/contracts/descriptor";

/**
 * The knowledge base's search as its owner declares it (a read of one query and an optional
 * limit), the tests' usual tool; `overrides` set what a test is about.
 */
export function kbSearchDescriptor(overrides: Partial<ToolDescriptorInput> = {}): ToolDescriptorInput {
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

/** `input` as the registry records it: parsed, hashed, and `status` (default enabled) since `at` (default now). */
export function toolRecordOf(input: ToolDescriptorInput, o: { status?: ToolStatus; at?: string } = {}): ToolRecord {
  const descriptor = ToolDescriptorSchema.parse(input);
  const at = o.at ?? new Date().toISOString();
  return { descriptor, descriptorHash: descriptorHash(descriptor), status: o.status ?? "enabled", registeredAt: at, statusChangedAt: at };
}

/** Puts `record` in the tools bucket, where services look descriptors up, as the registry would (for tests that run no registry). */
export async function putToolRecord(bus: Bus, record: ToolRecord): Promise<void> {
  await kvPutJson(await bus.kvm.open(BUCKET_TOOLS), toolKey(record.descriptor.name, record.descriptor.version), record);
}
