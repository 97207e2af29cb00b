import { z } from "zod";
import { requestRpc, type Bus, type Logger } from "@warden/bus";
import { fail, ok, parseToolName, registryRegisterSubject, type Outcome, type ToolDescriptor, type ToolStatus } from "@warden/contracts";

const RegisteredSchema = z.object({
  registered: z.array(
    z.object({
      name: z.string(),
      version: z.string(),
      descriptorHash: z.string(),
      status: z.string(),
      created: z.boolean(),
    }),
  ),
});
export type Registered = z.infer<typeof RegisteredSchema>["registered"];

export interface RegisterOptions {
  readonly bus: Bus;
  readonly log: Logger;
  readonly tools: readonly { readonly descriptor: ToolDescriptor; readonly descriptorHash: string }[];
  readonly initialStatus: ToolStatus;
  readonly timeoutMs: number;
}

const FIRST_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 2_000;
const RPC_TIMEOUT_MS = 5_000;

/**
 * Registers a domain's descriptors, retrying with backoff while the registry is unavailable (it
 * may start after us). A refusal (conflict, invalid descriptor) is returned at once.
 */
export async function registerTools(o: RegisterOptions): Promise<Outcome<Registered>> {
  const deadline = Date.now() + o.timeoutMs;
  const body = { descriptors: o.tools.map((t) => t.descriptor), initialStatus: o.initialStatus };
  // the subject names the domain: NATS permissions let an executor register only its own domain's tools
  const domain = o.tools[0] === undefined ? undefined : parseToolName(o.tools[0].descriptor.name)?.domain;
  if (domain === undefined) return ok([]);
  const subject = registryRegisterSubject(domain);
  let backoff = FIRST_BACKOFF_MS;
  for (let attempt = 1; ; attempt++) {
    const remaining = deadline - Date.now();
    const reply = await requestRpc(o.bus, subject, body, Math.max(100, Math.min(RPC_TIMEOUT_MS, remaining)));
    if (reply.ok) return checkReply(reply.value, o.tools);
    const left = deadline - Date.now();
    if (!reply.error.retryable || left <= 0) {
      return reply.error.retryable
        ? fail(reply.error.code, `registration gave up after ${attempt} attempts: ${reply.error.message}`)
        : { ok: false, error: reply.error };
    }
    o.log.info({ code: reply.error.code, attempt, retryInMs: backoff }, "registry not ready, retrying registration");
    await new Promise((r) => setTimeout(r, Math.min(backoff, left)));
    backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
  }
}

function checkReply(value: unknown, tools: RegisterOptions["tools"]): Outcome<Registered> {
  const parsed = RegisteredSchema.safeParse(value);
  if (!parsed.success) return fail("INTERNAL", "the registry's register reply has an unexpected shape");
  const byKey = new Map(parsed.data.registered.map((r) => [`${r.name}@${r.version}`, r]));
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
  return ok(parsed.data.registered);
}
