import { Redactor, ToolError, type ToolContext } from "@warden/executor";
import type { ErrorCode } from "@warden/contracts/errors";

/** A manifest that is valid but cannot run here (a missing root, no network sandbox): refused at start. */
export class AdapterConfigError extends Error {
  override readonly name = "AdapterConfigError";
}

/** Fails a call with a chosen code; the message and details are redacted first. */
export function toolFailure(
  redactor: Redactor,
  code: ErrorCode,
  message: string,
  retryable: boolean,
  details?: Record<string, string | number | boolean | null>,
): ToolError {
  const error = { code, message: redactor.text(message), retryable };
  return new ToolError(details === undefined ? error : { ...error, details: redactor.value(details) });
}

/** Any other throw from adapter code, with secrets taken out of its message. */
export function redactedError(redactor: Redactor, err: unknown): Error {
  if (err instanceof ToolError) return err;
  const text = err instanceof Error ? err.message || err.name : String(err);
  return new Error(redactor.text(text));
}

/**
 * The values of the secrets a tool uses, read through `ctx.secrets`: for the principal the call
 * runs for when bound to it, and recorded by name (never value) on the call's result. A secret
 * that is missing throws the ToolError that fails the call before anything runs.
 */
export async function secretValues(uses: readonly { readonly secret: string }[], ctx: Pick<ToolContext, "secrets">): Promise<Map<string, string>> {
  const values = new Map<string, string>();
  for (const { secret } of uses) if (!values.has(secret)) values.set(secret, await ctx.secrets.get(secret));
  return values;
}

/** A redactor of the tool's secrets for this call, for what its hook commands print; none when they cannot be had (the hooks never get them). */
export async function callRedactor(uses: readonly { readonly secret: string }[], ctx: Pick<ToolContext, "secrets">): Promise<Redactor> {
  try {
    return new Redactor(await secretValues(uses, ctx));
  } catch {
    return Redactor.none();
  }
}

/** The last `max` characters of a text, for error details. */
export function tail(text: string, max: number): string {
  return text.length <= max ? text : `…${text.slice(text.length - max)}`;
}
