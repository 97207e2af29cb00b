import { silentLogger, type Logger } from "@warden/bus";
import { type EffectsObserved, type PersonalDataCounts } from "@warden/contracts/events";
import { wardenError, type WardenError } from "@warden/contracts/errors";
import { redactsPersonalData, type CallMode } from "@warden/contracts/descriptor";
import { type JsonValue } from "@warden/contracts/json";
import { preCallRefusal, runPostCall } from "../call-hooks.js";
import type { ExecutableTool, PreparedCall } from "../define-tool.js";
import { cleanResult } from "../domain/redact-result.js";
import { shapeAndCheck } from "../result-checks.js";
import { mayHaveActed } from "../run-and-finish.js";
import { runWithTimeout } from "../run-with-timeout.js";
import { SecretStore } from "../secret-store.js";
import type { ToolContext } from "../tool-context.js";
import { EffectsLog } from "../tool-effects.js";
import { CallSecrets } from "../tool-secrets.js";

/** Options of {@link runTool}: the handler's context, and the test's control over time. */
export interface RunToolOptions {
  /** `ctx.callId`. @default "test-call" */
  readonly callId?: string;
  /** `ctx.principal`. @default "alice" */
  readonly principal?: string;
  /** `ctx.onBehalfOf`, whose values principal-bound secrets give. @default the principal */
  readonly onBehalfOf?: string;
  /** `ctx.mode`. @default "human" */
  readonly mode?: CallMode;
  /** `ctx.correlationId`. @default "test-run" */
  readonly correlationId?: string;
  /** `ctx.attempt` (2+ as when an idempotent tool is re-run after a crash). @default 1 */
  readonly attempt?: number;
  /** `ctx.log`. @default a silent logger */
  readonly log?: Logger;
  /**
   * Instead of the descriptor's timeoutMs: a short one tests a slow handler quickly.
   * @default the tool's `timeoutMs` (10_000 unless defined otherwise)
   */
  readonly timeoutMs?: number;
  /** Aborts the handler's signal from the test, as a timeout would. */
  readonly signal?: AbortSignal;
  /**
   * What `ctx.secrets.get(name)` reads: values by name, or a {@link SecretStore}. The result is
   * redacted of the values the handler asked for, as the executor records it.
   * @default none (every `ctx.secrets.get` fails the call)
   */
  readonly secrets?: SecretStore | Readonly<Record<string, string>>;
}

/** What the executor would record in ToolCallFinished for this run, without NATS. */
export type ToolRun =
  | {
      readonly ok: true;
      /** What the event carries: the whole output, or a valid-JSON preview when `truncated`. */
      readonly output: JsonValue;
      readonly outputBytes: number;
      readonly truncated: boolean;
      /** The whole output when `truncated`: what the executor writes to the artifact store. */
      readonly artifact?: JsonValue;
      /** What the run reported through `ctx.effects`, as ToolCallFinished records it; absent when nothing. */
      readonly effectsObserved?: EffectsObserved;
      /** How much personal data of each kind was masked (an L3 tool's default), as ToolCallFinished records it; absent when none. */
      readonly personalDataRedacted?: PersonalDataCounts;
    }
  | { readonly ok: false; readonly error: WardenError; readonly outputBytes: number; readonly effectsObserved?: EffectsObserved; readonly personalDataRedacted?: PersonalDataCounts };

/**
 * Runs a tool the way its executor would once the call is authorised, without NATS: args parsed
 * (`INVALID_ARGS`), the handler under its timeout with an AbortSignal (`TIMEOUT`; not retryable
 * unless the tool is idempotent), a throw as `HANDLER_ERROR` or the {@link ToolError}'s own
 * code, its `preCall` first (`PRECALL_REFUSED`, the handler not run) and its `postCall` last (on
 * the result returned here; a failure only logged), the output checked and shaped (`OUTPUT_INVALID` against its outputSchema, `VERIFY_FAILED`
 * by its own verify, `OUTPUT_TOO_LARGE`; over 8 KiB a
 * preview with `truncated: true` and the whole output as `artifact`). Never throws for the
 * tool's failures: they come back as `{ ok: false, error }`.
 *
 * @example
 * ```ts
 * import { runTool } from "@warden/executor/testing";
 *
 * it("looks up a paid invoice", async () => {
 *   const r = await runTool(lookup, { invoiceId: "INV-1" }, { principal: "alice", timeoutMs: 100 });
 *   expect(r).toMatchObject({ ok: true, output: { status: "paid" } });
 * });
 * it("refuses args without an invoice id", async () => {
 *   expect(await runTool(lookup, {})).toMatchObject({ ok: false, error: { code: "INVALID_ARGS" } });
 * });
 * ```
 */
export async function runTool(tool: ExecutableTool, args: unknown, opts: RunToolOptions = {}): Promise<ToolRun> {
  const prepared = tool.prepare(args);
  if (!prepared.ok) return { ok: false, error: wardenError("INVALID_ARGS", prepared.message), outputBytes: 0 };
  const outer = opts.signal;
  const principal = opts.principal ?? "alice";
  const onBehalfOf = opts.onBehalfOf ?? principal;
  const secrets = new CallSecrets(secretStore(opts.secrets), onBehalfOf);
  const ctx = {
    callId: opts.callId ?? "test-call",
    principal,
    onBehalfOf,
    mode: opts.mode ?? "human",
    correlationId: opts.correlationId ?? "test-run",
    attempt: opts.attempt ?? 1,
    log: opts.log ?? silentLogger(),
    secrets,
    effects: new EffectsLog(),
  };
  const timeoutMs = opts.timeoutMs ?? tool.descriptor.timeoutMs;
  const t0 = performance.now();
  const refused = await preCallRefusal(prepared, ctx, timeoutMs, () => secrets.redactor());
  const effects = () => {
    const observed = ctx.effects.observed(secrets.redactor());
    return observed === undefined ? {} : { effectsObserved: observed };
  };
  if (refused !== undefined) return { ok: false, error: refused, outputBytes: 0, ...effects() };
  // as in the executor, the handler has what preCall left of the tool's time
  const run = await runAndCheck(tool, prepared, ctx, prepared.preCall === undefined ? timeoutMs : Math.max(1, timeoutMs - (performance.now() - t0)), secrets, outer);
  await runPostCall(prepared, run.ok ? { ok: true, output: run.output, truncated: run.truncated } : { ok: false, error: run.error }, ctx, timeoutMs, ctx.log);
  return { ...run, ...effects() };
}

async function runAndCheck(tool: ExecutableTool, prepared: Extract<PreparedCall, { ok: true }>, ctx: Omit<ToolContext, "signal" | "effects"> & { effects: EffectsLog }, timeoutMs: number, secrets: CallSecrets, outer: AbortSignal | undefined): Promise<ToolRun> {
  const raw = await runWithTimeout((signal) => prepared.run({ ...ctx, signal: outer === undefined ? signal : AbortSignal.any([signal, outer]) }), timeoutMs);
  // cleaned as the executor cleans it: secrets redacted, personal data masked where the tool says
  const { result, counts } = cleanResult(raw, secrets.redactor(), redactsPersonalData(tool.descriptor));
  const masked = Object.keys(counts).length === 0 ? {} : { personalDataRedacted: counts };
  if (!result.ok) return { ok: false, error: mayHaveActed(result.error, tool), outputBytes: 0, ...masked };
  const { shaped } = await shapeAndCheck(tool, prepared, result.value, { ...ctx, signal: outer ?? new AbortController().signal }, () => secrets.redactor(), timeoutMs);
  if (shaped.kind === "error") return { ok: false, error: shaped.error, outputBytes: shaped.bytes, ...masked };
  if (shaped.kind === "inline") return { ok: true, output: shaped.output, outputBytes: shaped.bytes, truncated: false, ...masked };
  const artifact = JSON.parse(Buffer.from(shaped.json).toString("utf8")) as JsonValue;
  return { ok: true, output: shaped.preview, outputBytes: shaped.bytes, truncated: true, artifact, ...masked };
}

function secretStore(given: RunToolOptions["secrets"]): SecretStore {
  if (given === undefined) return SecretStore.none();
  if (given instanceof SecretStore) return given;
  const names = Object.keys(given);
  return new SecretStore(names.map((name) => ({ name, env: name })), { env: given });
}
