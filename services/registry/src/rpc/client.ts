import { requestRpc, type Bus } from "@warden/bus";
import {
  fail,
  isSafeToken,
  ok,
  parseToolName,
  registryRegisterSubject,
  registryStatusSubject,
  registryViewSubject,
  SUBJECT_REGISTRY_LIST,
  type Outcome,
  type ToolDescriptorInput,
  type ToolRecord,
  type ToolStatus,
  type ToolViewRequestInput,
} from "@warden/contracts";
import type { z } from "zod";
import { RegisterReplySchema, ToolRecordListSchema, ToolViewReplySchema, type RegisterReply, type ToolViewReply } from "./protocol.js";

export interface RpcOptions {
  readonly timeoutMs?: number;
}

async function call<S extends z.ZodType>(bus: Bus, subject: string, payload: unknown, schema: S, opts: RpcOptions): Promise<Outcome<z.infer<S>>> {
  const reply = await requestRpc(bus, subject, payload, opts.timeoutMs);
  if (!reply.ok) return reply;
  const parsed = schema.safeParse(reply.value);
  return parsed.success ? ok(parsed.data) : fail("INTERNAL", `unexpected reply on ${subject}: ${parsed.error.issues[0]?.message ?? "invalid"}`);
}

/** Registers descriptors (all or nothing); an existing version with the same content keeps its status. */
export function registerTools(
  bus: Bus,
  descriptors: readonly ToolDescriptorInput[],
  initialStatus?: ToolStatus,
  opts: RpcOptions = {},
): Promise<Outcome<RegisterReply>> {
  const body = initialStatus === undefined ? { descriptors } : { descriptors, initialStatus };
  const domains = new Set(descriptors.map((d) => parseToolName(typeof d.name === "string" ? d.name : "")?.domain ?? ""));
  const [domain] = domains;
  if (domains.size !== 1 || !domain) {
    return Promise.resolve(fail("INVALID_REQUEST", "a registration holds the tools of exactly one domain (`<domain>.<capability>` names)"));
  }
  return call(bus, registryRegisterSubject(domain), body, RegisterReplySchema, opts);
}

/** Enables or disables one version, or every version of the name when `version` is omitted. */
export function setToolStatus(
  bus: Bus,
  req: { readonly name: string; readonly version?: string; readonly status: ToolStatus },
  opts: RpcOptions = {},
): Promise<Outcome<ToolRecord[]>> {
  const domain = parseToolName(req.name)?.domain;
  if (domain === undefined) return Promise.resolve(fail("INVALID_REQUEST", `${req.name} is not a \`<domain>.<capability>\` tool name`));
  return call(bus, registryStatusSubject(domain), req, ToolRecordListSchema, opts);
}

export function listTools(bus: Bus, opts: RpcOptions = {}): Promise<Outcome<ToolRecord[]>> {
  return call(bus, SUBJECT_REGISTRY_LIST, {}, ToolRecordListSchema, opts);
}

/** The ToolView for one caller, compiled and formatted by the registry. */
export function fetchToolView(bus: Bus, request: ToolViewRequestInput, opts: RpcOptions = {}): Promise<Outcome<ToolViewReply>> {
  if (!isSafeToken(request.principal)) {
    return Promise.resolve(fail("INVALID_REQUEST", `principal ${JSON.stringify(request.principal)} is not a safe subject token`));
  }
  return call(bus, registryViewSubject(request.principal), request, ToolViewReplySchema, opts);
}
