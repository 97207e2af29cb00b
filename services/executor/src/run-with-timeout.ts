import { wardenError, type WardenError } from "@warden/contracts/errors";
import { ToolError } from "./tool-error.js";

export type HandlerResult = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: WardenError };

const MAX_ERROR_MESSAGE = 2_000;

/**
 * Runs a handler with an AbortSignal and a deadline. On timeout the signal is aborted and a
 * TIMEOUT result is returned at once: a hung handler never holds the executor.
 */
export async function runWithTimeout(run: (signal: AbortSignal) => Promise<unknown>, timeoutMs: number): Promise<HandlerResult> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<HandlerResult>((resolve) => {
    timer = setTimeout(() => {
      // settle first, so a handler that rejects on abort cannot win the race
      resolve({ ok: false, error: wardenError("TIMEOUT", `the tool did not finish within ${timeoutMs} ms`, { timeoutMs }) });
      controller.abort(new DOMException(`timed out after ${timeoutMs} ms`, "TimeoutError"));
    }, timeoutMs);
  });
  const work = Promise.resolve()
    .then(() => run(controller.signal))
    .then(
      (value): HandlerResult => ({ ok: true, value }),
      (err: unknown): HandlerResult =>
        err instanceof ToolError ? { ok: false, error: err.error } : { ok: false, error: wardenError("HANDLER_ERROR", messageOf(err)) },
    );
  try {
    return await Promise.race([work, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

function messageOf(err: unknown): string {
  const text = err instanceof Error ? err.message || err.name : String(err);
  return text.length > MAX_ERROR_MESSAGE ? `${text.slice(0, MAX_ERROR_MESSAGE)}…` : text;
}
