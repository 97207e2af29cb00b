import type { Bus, Logger } from "@warden/bus";
import { fail, ok, type Outcome } from "@warden/contracts/errors";
import { type RegisteredTool, type ToolDescriptor, type ToolStatus } from "@warden/contracts/descriptor";
import { createRegistryClient } from "@warden/sdk";

export type Registered = RegisteredTool[];

export interface RegisterOptions {
  readonly bus: Bus;
  readonly log: Logger;
  readonly tools: readonly { readonly descriptor: ToolDescriptor; readonly descriptorHash: string }[];
  readonly initialStatus: ToolStatus;
  /** How long a registry that is not ready yet (it may start after us) is waited for. */
  readonly timeoutMs: number;
}

/**
 * Registers a domain's descriptors through the SDK's registry client (retryable errors are asked
 * again until `timeoutMs`; a refusal returns at once), then checks the registry holds this
 * executor's exact descriptors.
 */
export async function registerTools(o: RegisterOptions): Promise<Outcome<Registered>> {
  if (o.tools.length === 0) return ok([]);
  const registry = createRegistryClient(o.bus, { patienceMs: o.timeoutMs, log: o.log });
  const reply = await registry.register(
    o.tools.map((t) => t.descriptor),
    o.initialStatus,
  );
  return reply.ok ? checkHashes(reply.value.registered, o.tools) : reply;
}

function checkHashes(registered: Registered, tools: RegisterOptions["tools"]): Outcome<Registered> {
  const byKey = new Map(registered.map((r) => [`${r.name}@${r.version}`, r]));
  for (const t of tools) {
    const r = byKey.get(`${t.descriptor.name}@${t.descriptor.version}`);
    // a different hash means every call would be refused as DESCRIPTOR_CHANGED: fail now, loudly
    if (r !== undefined && r.descriptorHash !== t.descriptorHash) {
      return fail(
        "REGISTRATION_CONFLICT",
        `the registry holds ${t.descriptor.name}@${t.descriptor.version} with hash ${r.descriptorHash}, this executor has ${t.descriptorHash}`,
      );
    }
  }
  return ok(registered);
}
