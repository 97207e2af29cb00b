import type { Bus } from "@warden/bus";
import {
  isSafeToken,
  parseToolName,
  registryRegisterSubject,
  registryStatusSubject,
  registryViewSubject,
  SUBJECT_REGISTRY_LIST,
} from "@warden/contracts/subjects";
import { fail, type Outcome } from "@warden/contracts/errors";
import {
  ListToolsRequestSchema,
  RegisterReplySchema,
  ToolRecordListSchema,
  ToolViewReplySchema,
  type RegisterReply,
  type RegisterRequestInput,
  type SetStatusRequest,
  type ToolDescriptorInput,
  type ToolRecord,
  type ToolStatus,
  type ToolViewReply,
  type ToolViewRequestInput,
} from "@warden/contracts/descriptor";
import { requestWithPatience, type PatienceOptions } from "./patient-request.js";

/** Options of {@link createRegistryClient}: how patiently to wait for a registry (see {@link PatienceOptions}). */
export type RegistryClientOptions = PatienceOptions;

/**
 * The registry's request-reply protocol (`@warden/contracts` registry-protocol, subjects in
 * docs/architecture.md) as calls that answer values. Each call follows one retry rule: an error
 * marked `retryable` is asked again with backoff until `patienceMs` runs out; a refusal returns
 * at once. The server's permissions decide which calls the bus's identity may make.
 */
export interface RegistryClient {
  /**
   * Registers descriptors of one domain, all or nothing; a version already registered with the
   * same content keeps its status. Errors: `INVALID_REQUEST` (a batch spanning domains, refused
   * here), `DESCRIPTOR_INVALID` (a descriptor fails the schema or its lint),
   * `REGISTRATION_CONFLICT` (that version exists with other content: bump the version),
   * `FORBIDDEN` (this identity may not register that domain), `UNAVAILABLE` (no registry).
   * @param initialStatus - status of versions the registry has not seen before (`enabled`,
   *   `disabled` or `discovered`); omitted, the registry uses `enabled`.
   */
  register(descriptors: readonly ToolDescriptorInput[], initialStatus?: ToolStatus): Promise<Outcome<RegisterReply>>;
  /**
   * Enables or disables one version, or every version of the name when `version` is omitted;
   * answers the updated records. Errors: `INVALID_REQUEST` (not a `<domain>.<capability>`
   * name), `NOT_FOUND`, `FORBIDDEN` (only the admin and the domain's own executor may).
   */
  setStatus(request: SetStatusRequest): Promise<Outcome<ToolRecord[]>>;
  /** Every registered version (Warden-account identities only; an agent gets `FORBIDDEN`). */
  list(): Promise<Outcome<ToolRecord[]>>;
  /**
   * The ToolView for the request's principal, compiled and formatted by the registry. Errors:
   * `INVALID_REQUEST` (principal not a safe token, or a bad query), `FORBIDDEN` (a client asking
   * for another principal's view).
   */
  view(request: ToolViewRequestInput): Promise<Outcome<ToolViewReply>>;
}

/**
 * The one registry client: register descriptors, enable or disable versions, list them, compile
 * a ToolView. Every method answers an {@link Outcome} and never throws.
 *
 * @param bus - a connection whose identity the server lets use the subjects asked on (an
 *   executor registers and enables only its own domain; the admin anything; an agent only views).
 * @param options - `patienceMs` (default 0: ask once) is how long a registry that is not
 *   answering yet is waited for; `requestTimeoutMs` (default 5_000) bounds each attempt.
 * @example
 * ```ts
 * const registry = createRegistryClient(bus, { patienceMs: 30_000 });
 * const r = await registry.setStatus({ name: "everything.echo", status: "enabled" });
 * if (!r.ok) console.error(r.error.code, r.error.message); // e.g. NOT_FOUND, FORBIDDEN
 * ```
 */
export function createRegistryClient(bus: Bus, options: RegistryClientOptions = {}): RegistryClient {
  return {
    register(descriptors, initialStatus) {
      // the subject names the domain: the server lets an executor register only its own domain's tools
      const domains = new Set(descriptors.map((d) => (typeof d.name === "string" ? parseToolName(d.name)?.domain : undefined) ?? ""));
      const [domain] = domains;
      if (domains.size !== 1 || !domain) {
        return Promise.resolve(fail("INVALID_REQUEST", "a registration holds the tools of exactly one domain (`<domain>.<capability>` names)"));
      }
      const body: RegisterRequestInput = initialStatus === undefined ? { descriptors: [...descriptors] } : { descriptors: [...descriptors], initialStatus };
      return requestWithPatience(bus, registryRegisterSubject(domain), body, RegisterReplySchema, options);
    },
    setStatus(request) {
      const domain = parseToolName(request.name)?.domain;
      if (domain === undefined) return Promise.resolve(fail("INVALID_REQUEST", `${request.name} is not a \`<domain>.<capability>\` tool name`));
      return requestWithPatience(bus, registryStatusSubject(domain), request, ToolRecordListSchema, options);
    },
    list() {
      return requestWithPatience(bus, SUBJECT_REGISTRY_LIST, ListToolsRequestSchema.parse({}), ToolRecordListSchema, options);
    },
    view(request) {
      if (!isSafeToken(request.principal)) {
        return Promise.resolve(fail("INVALID_REQUEST", `principal ${JSON.stringify(request.principal)} is not a safe subject token`));
      }
      return requestWithPatience(bus, registryViewSubject(request.principal), request, ToolViewReplySchema, options);
    },
  };
}
