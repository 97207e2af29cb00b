import { ToolDescriptorSchema } from "@warden/contracts/descriptor";
import { type JsonValue } from "@warden/contracts/json";
import { Redactor, type ExecutableTool, type PreparedCall, type ToolContext, type ToolEffects } from "@warden/executor";
import { adapterTool, type Args, type PreparedPreview } from "../adapter-tool.js";
import { callRedactor, redactedError, secretValues, tail, toolFailure } from "../adapter-errors.js";
import { buildHttpRequest, checkMethodForGrade, type HttpRequestPlan } from "../domain/http-request.js";
import type { HookCommandDeps } from "../hooks/hook-command.js";
import { manifestHooks } from "../hooks/manifest-hooks.js";
import type { HttpSection, SecretSource, ToolEntry } from "../manifest/manifest-schema.js";
import { toolDescriptor } from "../manifest/tool-descriptor.js";
import { readCapped } from "./read-body.js";

export interface HttpToolDeps {
  /** The manifest's secrets (values are read through `ctx.secrets`, from the executor's store). */
  readonly secretSources: readonly SecretSource[];
  readonly fetch?: typeof fetch;
  /** Where the tool's preCall, verify and postCall commands run; needed only when it declares any. */
  readonly hooks?: HookCommandDeps;
}

const ERROR_TEXT = 2_000;

/** A manifest tool that makes one HTTP request: allow-listed hosts, safe methods for reads, capped bodies. */
export function httpTool(domain: string, entry: ToolEntry & { http: HttpSection }, deps: HttpToolDeps): ExecutableTool {
  const http = entry.http;
  const descriptor = ToolDescriptorSchema.parse(toolDescriptor(domain, entry, deps.secretSources));
  const doFetch = deps.fetch ?? fetch;
  const uses = entry.secrets;

  const prepare = (args: Args): PreparedCall => {
    const plan = buildHttpRequest(http, args, descriptor.grade);
    if (!plan.ok) return { ok: false, message: plan.error.message };
    return { ok: true, run: (ctx) => run(plan.value, ctx) };
  };

  // the dry run is a GET or HEAD (refused otherwise at load, and by the read grade here) to the same hosts, with the same secrets: its body is the preview
  const dryRun = entry.preview;
  const preview =
    dryRun === undefined
      ? undefined
      : (args: Args): PreparedPreview => {
          const template = { method: dryRun.method ?? "GET", url: dryRun.url ?? "", allowHosts: http.allowHosts, ...(dryRun.query === undefined ? {} : { query: dryRun.query }), ...(dryRun.headers === undefined ? {} : { headers: dryRun.headers }) };
          const plan = buildHttpRequest(template, args, "read");
          if (!plan.ok) return { ok: false, message: plan.error.message };
          return { ok: true, run: async (ctx) => (await run(plan.value, ctx, "read")).body };
        };

  const run = async (
    plan: HttpRequestPlan,
    ctx: Pick<ToolContext, "signal" | "log" | "secrets"> & { readonly effects?: ToolEffects },
    grade = descriptor.grade,
  ): Promise<{ status: number; contentType: string; body: JsonValue }> => {
    // checked again right before sending: the plan may come from anywhere, the rule may not bend
    const method = checkMethodForGrade(plan.method, grade);
    if (!method.ok) throw toolFailure(Redactor.none(), "INVALID_ARGS", method.error.message, false);
    const secrets = await secretValues(uses, ctx);
    const redactor = new Redactor(secrets);
    try {
      const headers = { ...plan.headers };
      for (const u of uses) if (u.header !== undefined) headers[u.header] = `${u.prefix}${secrets.get(u.secret)!}`;
      ctx.log.debug({ method: plan.method, host: plan.url.host }, "sending request");
      // reported before it is sent: a request that failed may still have arrived. Never the query
      // string, the fragment or the headers: they may carry secrets or personal data
      ctx.effects?.called(`${plan.method} ${plan.url.origin}${plan.url.pathname}`);
      let res: Response;
      try {
        res = await doFetch(plan.url, { method: plan.method, headers, body: plan.body ?? null, redirect: "manual", signal: ctx.signal });
      } catch (err) {
        if (ctx.signal.aborted) throw toolFailure(redactor, "TIMEOUT", "the request was aborted: the call timed out", true);
        const cause = (err as { cause?: { code?: string; message?: string } }).cause;
        throw toolFailure(redactor, "UNAVAILABLE", `the request to ${plan.url.host} failed: ${cause?.code ?? cause?.message ?? (err as Error).message}`, true);
      }
      const body = await readCapped(res.body, http.maxResponseBytes);
      if (body.over) {
        throw toolFailure(redactor, "OUTPUT_TOO_LARGE", `the response body passed the tool's cap of ${http.maxResponseBytes} bytes`, false, { status: res.status });
      }
      const contentType = res.headers.get("content-type") ?? "";
      if (res.status >= 300 && res.status < 400) {
        throw toolFailure(redactor, "HANDLER_ERROR", `the server answered ${res.status}; redirects are not followed (to ${res.headers.get("location") ?? "?"})`, false, {
          status: res.status,
        });
      }
      const decoded = decode(body.bytes, contentType, http.response, redactor);
      if (res.status >= 400) {
        const retryable = res.status >= 500 || res.status === 429 || res.status === 408;
        const text = typeof decoded.value === "string" ? decoded.value : JSON.stringify(decoded.value);
        throw toolFailure(redactor, "HANDLER_ERROR", `the server answered ${res.status} ${res.statusText}`, retryable, {
          status: res.status,
          body: tail(text, ERROR_TEXT),
        });
      }
      if (!decoded.ok) throw toolFailure(redactor, "OUTPUT_INVALID", decoded.message, false);
      return { status: res.status, contentType, body: decoded.value };
    } catch (err) {
      throw redactedError(redactor, err);
    }
  };

  const hasHooks = entry.preCall !== undefined || entry.verify !== undefined || entry.postCall !== undefined;
  if (hasHooks && deps.hooks === undefined) throw new Error(`bug: ${descriptor.name} declares hooks, and nothing says where they run`);
  const redactor = (ctx: ToolContext) => callRedactor(uses, ctx);
  const hooks = hasHooks && deps.hooks !== undefined ? manifestHooks(descriptor.name, entry, undefined, deps.hooks, redactor) : {};
  return adapterTool(descriptor, prepare, { hooks, ...(preview === undefined ? {} : { preview }) });
}

type Decoded = { ok: true; value: JsonValue } | { ok: false; message: string; value: JsonValue };

/** JSON when the manifest or the content type says so, text for text, base64 for anything else; secrets redacted first. */
function decode(bytes: Buffer, contentType: string, mode: HttpSection["response"], redactor: Redactor): Decoded {
  const isJson = mode === "json" || (mode === "auto" && /[/+]json\b/i.test(contentType));
  const isText = mode === "text" || isJson || /^text\/|xml|x-www-form-urlencoded|javascript/i.test(contentType) || contentType === "";
  // redacted as bytes first: once encoded, a secret's base64 depends on its offset in the body
  if (!isText) return { ok: true, value: { base64: redactor.text(redactor.bytes(bytes).toString("base64")) } };
  const text = redactor.text(bytes.toString("utf8"));
  if (!isJson) return { ok: true, value: text };
  if (text.trim() === "") return { ok: true, value: null };
  try {
    return { ok: true, value: redactor.value(JSON.parse(text) as JsonValue) };
  } catch (err) {
    return { ok: false, message: `the response is not JSON: ${(err as Error).message}`, value: text };
  }
}
