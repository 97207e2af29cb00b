import { serveRpc, type Bus, type KV, type Logger } from "@warden/bus";
import { compileToolView } from "@warden/policy-engine";
import type { DescriptorCache, ExecutorLiveness, PolicyDocumentFollower } from "@warden/service-kit";
import {
  compareVersions,
  lastSubjectToken,
  parseToolName,
  QUEUE_REGISTRY,
  REGISTRY_REGISTER_SUBJECTS,
  REGISTRY_STATUS_SUBJECTS,
  REGISTRY_VIEW_SUBJECTS,
  SUBJECT_REGISTRY_LIST,
} from "@warden/contracts/subjects";
import { wardenError, type Outcome } from "@warden/contracts/errors";
import {
  ListToolsRequestSchema,
  RegisterRequestSchema,
  SetStatusRequestSchema,
  ToolViewRequestSchema,
  type RegisterReply,
  type Reply,
  type ToolRecord,
  type ToolViewReply,
} from "@warden/contracts/descriptor";
import { type JsonValue } from "@warden/contracts/json";
import type { z } from "zod";
import type { ArgsValidators } from "../domain/args-validator.js";
import { formatToolView } from "../domain/format-tool-view.js";
import { parseDescriptors } from "../domain/parse-descriptors.js";
import { registerDescriptors, updateToolStatus } from "../store/tool-store.js";

export interface RegistryRpcDeps {
  readonly bus: Bus;
  readonly log: Logger;
  readonly tools: KV;
  readonly cache: DescriptorCache;
  readonly policy: PolicyDocumentFollower;
  readonly validators: ArgsValidators;
  /** Set: views hide the tools of domains with no live executor heartbeat (`no_executor`). */
  readonly liveness?: ExecutorLiveness;
}

type Subscription = ReturnType<typeof serveRpc>;

function reply<T>(outcome: Outcome<T>): Reply {
  // the values are plain JSON (records, views); the cast drops their optional-field types
  return outcome.ok ? { ok: true, value: outcome.value as JsonValue } : outcome;
}

function invalid(subject: string, error: z.ZodError): Reply {
  const issues = error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
  return { ok: false, error: wardenError("INVALID_REQUEST", `bad request on ${subject}: ${issues.join("; ")}`) };
}

function forbidden(message: string): Reply {
  return { ok: false, error: wardenError("FORBIDDEN", message) };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function byNameAndVersion(a: ToolRecord, b: ToolRecord): number {
  const n = a.descriptor.name.localeCompare(b.descriptor.name);
  return n !== 0 ? n : compareVersions(a.descriptor.version, b.descriptor.version);
}

/**
 * Serves register / status / list / view in the registry's queue group; each request is
 * validated with its schema of the registry protocol in `@warden/contracts`.
 */
export function serveRegistryRpc(deps: RegistryRpcDeps): Subscription[] {
  const { bus, log, tools, cache, policy, validators } = deps;
  // after a write, answer only once this copy's cache shows it, so a list or view that follows sees it
  const cacheShows = (written: readonly { name: string; version: string }[], matches: (r: ToolRecord, i: number) => boolean) =>
    cache.waitFor(() =>
      written.every((w, i) => {
        const r = cache.get(w.name, w.version);
        return r !== undefined && matches(r, i);
      }),
    );

  return [
    serveRpc(bus, REGISTRY_REGISTER_SUBJECTS, QUEUE_REGISTRY, log, async (payload, msg) => {
      const req = RegisterRequestSchema.safeParse(payload);
      if (!req.success) return invalid(msg.subject, req.error);
      const parsed = parseDescriptors(req.data.descriptors, (s) => validators.checkSchema(s));
      if (!parsed.ok) return parsed;
      const foreign = parsed.value.find((d) => parseToolName(d.descriptor.name)?.domain !== lastSubjectToken(msg.subject));
      if (foreign !== undefined) return forbidden(`${msg.subject} registers only its own domain's tools, not ${foreign.descriptor.name}`);
      const result = await registerDescriptors(tools, parsed.value, req.data.initialStatus);
      if (!result.ok) return result;
      const registered = result.value;
      await cacheShows(registered, (r, i) => r.descriptorHash === registered[i]?.descriptorHash);
      log.info({ tools: result.value.map((t) => `${t.name}@${t.version}`), created: result.value.filter((t) => t.created).length }, "tools registered");
      return reply({ ok: true, value: { registered: result.value } satisfies RegisterReply });
    }),
    serveRpc(bus, REGISTRY_STATUS_SUBJECTS, QUEUE_REGISTRY, log, async (payload, msg) => {
      const req = SetStatusRequestSchema.safeParse(payload);
      if (!req.success) return invalid(msg.subject, req.error);
      if (parseToolName(req.data.name)?.domain !== lastSubjectToken(msg.subject)) {
        return forbidden(`${msg.subject} sets the status of its own domain's tools only, not ${req.data.name}`);
      }
      const result = await updateToolStatus(tools, req.data);
      if (!result.ok) return result;
      const updated = result.value;
      const keys = updated.map((u) => ({ name: u.descriptor.name, version: u.descriptor.version }));
      await cacheShows(keys, (r, i) => r.statusChangedAt === updated[i]?.statusChangedAt && r.status === updated[i]?.status);
      log.info({ tool: req.data.name, version: req.data.version, status: req.data.status }, "tool status set");
      return reply(result);
    }),
    serveRpc(bus, SUBJECT_REGISTRY_LIST, QUEUE_REGISTRY, log, async (payload, msg) => {
      const req = ListToolsRequestSchema.safeParse(payload);
      if (!req.success) return invalid(msg.subject, req.error);
      return reply({ ok: true, value: cache.records().sort(byNameAndVersion) });
    }),
    serveRpc(bus, REGISTRY_VIEW_SUBJECTS, QUEUE_REGISTRY, log, async (payload, msg) => {
      // the principal is the subject token the server let the caller publish, never a payload field
      const principal = lastSubjectToken(msg.subject);
      const req = ToolViewRequestSchema.safeParse({ ...(isObject(payload) ? payload : {}), principal });
      if (!req.success) return invalid(msg.subject, req.error);
      const { format, explain, intent, limit, maxTools, ...query } = req.data;
      const records = cache.records();
      const liveDomains = deps.liveness === undefined ? undefined : await liveDomainsOf(deps.liveness, records);
      const view = compileToolView(records, policy.current(), query, {
        explain,
        ...(liveDomains === undefined ? {} : { liveDomains }),
        ...(intent === undefined ? {} : { intent }),
        ...(limit === undefined ? {} : { limit }),
        ...(maxTools === undefined ? {} : { maxTools }),
      });
      const formatted = formatToolView(view, format, (name, version) => cache.get(name, version)?.descriptor);
      return reply({ ok: true, value: { view, formatted } satisfies ToolViewReply });
    }),
  ];
}

/** The domains of these records whose executors beat (each read at most once a second: the liveness caches). */
async function liveDomainsOf(liveness: ExecutorLiveness, records: readonly ToolRecord[]): Promise<ReadonlySet<string>> {
  const domains = [...new Set(records.map((r) => r.descriptor.name.split(".")[0]!))];
  const alive = await Promise.all(domains.map((d) => liveness.isAlive(d)));
  return new Set(domains.filter((_, i) => alive[i]));
}
