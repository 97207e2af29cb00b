import type { Bus } from "@warden/bus";
import {
  fail,
  isSafeToken,
  ListToolsRequestSchema,
  parseToolName,
  registryRegisterSubject,
  registryStatusSubject,
  registryViewSubject,
  RegisterReplySchema,
  SUBJECT_REGISTRY_LIST,
  ToolRecordListSchema,
  ToolViewReplySchema,
  type Outcome,
  type RegisterReply,
  type RegisterRequestInput,
  type SetStatusRequest,
  type ToolDescriptorInput,
  type ToolRecord,
  type ToolStatus,
  type ToolViewReply,
  type ToolViewRequestInput,
} from "@warden/contracts";
import { requestWithPatience, type PatienceOptions } from "./patient-request.js";

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
   * same content keeps its status. A batch spanning domains is refused here (INVALID_REQUEST).
   */
  register(descriptors: readonly ToolDescriptorInput[], initialStatus?: ToolStatus): Promise<Outcome<RegisterReply>>;
  /** Enables or disables one version, or every version of the name when `version` is omitted; answers the updated records. */
  setStatus(request: SetStatusRequest): Promise<Outcome<ToolRecord[]>>;
  /** Every registered version (Warden-account identities only). */
  list(): Promise<Outcome<ToolRecord[]>>;
  /** The ToolView for the request's principal, compiled and formatted by the registry. */
  view(request: ToolViewRequestInput): Promise<Outcome<ToolViewReply>>;
}

/** A registry client over `bus`; `patienceMs` (default 0: ask once) is how long a registry that is not ready yet is waited for. */
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
