import { z } from "zod";
import { requestRpc, type Bus } from "@warden/bus";
import {
  fail,
  ok,
  parseToolName,
  registryRegisterSubject,
  registryStatusSubject,
  SUBJECT_REGISTRY_LIST,
  ToolRecordSchema,
  type Outcome,
  type ToolDescriptor,
  type ToolRecord,
  type ToolStatus,
} from "@warden/contracts";

const RPC_TIMEOUT_MS = 5_000;
const FIRST_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 2_000;

const RecordsSchema = z.array(ToolRecordSchema);
const RegisteredSchema = z.object({
  registered: z.array(z.object({ name: z.string(), version: z.string(), descriptorHash: z.string(), status: z.string(), created: z.boolean() })),
});
export type Registered = z.infer<typeof RegisteredSchema>["registered"];

/** The registry's request-reply API, retried while the registry is unavailable (it may start after us). */
export class RegistryClient {
  constructor(
    private readonly bus: Bus,
    /** How long to keep retrying an unavailable registry. */
    private readonly patienceMs = 30_000,
  ) {}

  async list(): Promise<Outcome<ToolRecord[]>> {
    return this.call(SUBJECT_REGISTRY_LIST, {}, RecordsSchema);
  }

  /** Registers all or nothing; a version already registered with the same content keeps its status. */
  async register(descriptors: readonly ToolDescriptor[], initialStatus: ToolStatus): Promise<Outcome<Registered>> {
    const domain = descriptors[0] === undefined ? undefined : parseToolName(descriptors[0].name)?.domain;
    if (domain === undefined) return ok([]);
    const r = await this.call(registryRegisterSubject(domain), { descriptors, initialStatus }, RegisteredSchema);
    return r.ok ? ok(r.value.registered) : r;
  }

  async setStatus(name: string, version: string, status: ToolStatus): Promise<Outcome<ToolRecord[]>> {
    const domain = parseToolName(name)?.domain;
    if (domain === undefined) return fail("INVALID_REQUEST", `${name} is not a \`<domain>.<capability>\` tool name`);
    return this.call(registryStatusSubject(domain), { name, version, status }, RecordsSchema);
  }

  private async call<S extends z.ZodType>(subject: string, body: unknown, schema: S): Promise<Outcome<z.infer<S>>> {
    const deadline = Date.now() + this.patienceMs;
    let backoff = FIRST_BACKOFF_MS;
    for (;;) {
      const left = deadline - Date.now();
      const reply = await requestRpc(this.bus, subject, body, Math.max(100, Math.min(RPC_TIMEOUT_MS, left)));
      if (reply.ok) {
        const parsed = schema.safeParse(reply.value);
        return parsed.success ? ok(parsed.data) : fail("INTERNAL", `unexpected reply on ${subject}`);
      }
      if (reply.error.code !== "UNAVAILABLE" || Date.now() >= deadline) return reply;
      await new Promise((r) => setTimeout(r, Math.min(backoff, Math.max(0, deadline - Date.now()))));
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    }
  }
}
