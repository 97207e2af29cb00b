import type { ToolDescriptor } from "@warden/contracts/descriptor";
import { JsonSchemaValidators } from "@warden/service-kit";

const MAX_ERRORS = 10;

/**
 * Checks args an approver edited against the tool's inputSchema, the way the registry checked the
 * requested ones (the same validators: drafts and formats). Validators are kept per descriptor
 * hash: a version's schema never changes. An error names each failing path.
 */
export function editedArgsChecker(): (descriptor: ToolDescriptor, descriptorHash: string, args: unknown) => string | undefined {
  const schemas = new JsonSchemaValidators();
  return (descriptor, descriptorHash, args) => {
    const check = schemas.validate(descriptorHash, descriptor.inputSchema, args);
    if (check.kind === "valid") return undefined;
    if (check.kind === "broken") return `the tool's inputSchema does not compile: ${check.message}`;
    return check.errors
      .slice(0, MAX_ERRORS)
      .map((e) => `${e.path} ${e.message}`)
      .join("; ");
  };
}
