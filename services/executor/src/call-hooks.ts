import type { Logger } from "@warden/bus";
import { wardenError, type WardenError } from "@warden/contracts/errors";
import type { PreparedCall, RecordedResult } from "./define-tool.js";
import type { Redactor } from "./domain/redactor.js";
import { runWithTimeout } from "./run-with-timeout.js";
import type { ToolContext } from "./tool-context.js";

type Prepared = Extract<PreparedCall, { ok: true }>;

const MAX_REASON = 2_000;

/**
 * Runs the tool's preCall, if any: the PRECALL_REFUSED error when it refuses (its reason, cleaned
 * by `redactor`: it may have read secrets), undefined to go ahead. A throw or a timeout refuses:
 * a check that could not answer is no permission to act.
 */
export async function preCallRefusal(prepared: Prepared, ctx: Omit<ToolContext, "signal">, timeoutMs: number, redactor: () => Redactor): Promise<WardenError | undefined> {
  if (prepared.preCall === undefined) return undefined;
  const check = prepared.preCall;
  const r = await runWithTimeout((signal) => check({ ...ctx, signal }), Math.max(1, timeoutMs));
  let reason: string | undefined;
  if (!r.ok) reason = `preCall did not complete (${r.error.code}: ${r.error.message})`;
  else if (typeof r.value === "string") reason = r.value.trim() === "" ? "preCall refused it without a reason" : r.value;
  else if (r.value === false) reason = "preCall refused it without a reason";
  if (reason === undefined) return undefined;
  const clean = redactor().text(reason);
  return wardenError("PRECALL_REFUSED", `the tool's preCall check refused the call, it did not run: ${clean.length <= MAX_REASON ? clean : `${clean.slice(0, MAX_REASON - 1)}…`}`);
}

/** Runs the tool's postCall, if any, on the recorded result; a throw or a timeout is logged, never an outcome. */
export async function runPostCall(prepared: Prepared, result: RecordedResult, ctx: Omit<ToolContext, "signal">, timeoutMs: number, log: Logger): Promise<void> {
  if (prepared.postCall === undefined) return;
  const follow = prepared.postCall;
  const r = await runWithTimeout((signal) => follow(result, { ...ctx, signal }), Math.max(1, timeoutMs));
  if (!r.ok) log.warn({ code: r.error.code, reason: r.error.message }, "postCall failed; the call's outcome stands");
}
