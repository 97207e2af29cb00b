import { fail, ok, type Outcome } from "@warden/contracts/errors";
import { type ToolRecord, type ToolStatus } from "@warden/contracts/descriptor";
import type { ParsedDescriptor } from "./parse-descriptors.js";

export function newToolRecord(p: ParsedDescriptor, status: ToolStatus, now: Date): ToolRecord {
  const at = now.toISOString();
  return { descriptor: p.descriptor, descriptorHash: p.descriptorHash, status, registeredAt: at, statusChangedAt: at };
}

/**
 * A version is immutable: registering it again is fine only with the same content (a no-op that
 * keeps its status); new content needs a new version.
 */
export function checkSameContent(existing: ToolRecord, p: ParsedDescriptor): Outcome<void> {
  if (existing.descriptorHash === p.descriptorHash) return ok(undefined);
  const d = p.descriptor;
  return fail(
    "REGISTRATION_CONFLICT",
    `${d.name}@${d.version} is already registered with other content (${existing.descriptorHash}, not ${p.descriptorHash}); versions are immutable: register the change as a new version`,
    { name: d.name, version: d.version, existingHash: existing.descriptorHash, descriptorHash: p.descriptorHash },
  );
}

/** The record with a new status, or undefined when it already has that status. */
export function withStatus(record: ToolRecord, status: ToolStatus, now: Date): ToolRecord | undefined {
  if (record.status === status) return undefined;
  return { ...record, status, statusChangedAt: now.toISOString() };
}
