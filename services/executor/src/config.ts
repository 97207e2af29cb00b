import { readFileSync } from "node:fs";
import { z } from "zod";
import { ConfigError, parseEnv } from "@warden/bus";
import { ApproverKeyError, pinApproverKeys } from "./approver-keys.js";

/**
 * The approver public keys an executor process is provisioned with (base64 SPKI DER Ed25519, as
 * the approver's `signingKey.publicKeyDerBase64`). Both may be given; their keys are merged.
 */
export const ApproverKeysConfigSchema = z.object({
  /** Comma-separated keys. */
  WARDEN_APPROVER_PUBLIC_KEYS: z.string().min(1).optional(),
  /** A file with one key per line (blank lines and `#` comments are skipped). */
  WARDEN_APPROVER_PUBLIC_KEYS_FILE: z.string().min(1).optional(),
});
export type ApproverKeysConfig = z.infer<typeof ApproverKeysConfigSchema>;

/**
 * Reads the pinned approver keys from the environment, for `startExecutor({ approverKeys })`.
 * A key that is not an Ed25519 public key, or an unreadable file, is a ConfigError naming the
 * variable. No keys at all is allowed: such an executor refuses every grant.
 */
export function loadApproverKeys(env: NodeJS.ProcessEnv): string[] {
  const config = parseEnv(ApproverKeysConfigSchema, env);
  const inline = config.WARDEN_APPROVER_PUBLIC_KEYS;
  const file = config.WARDEN_APPROVER_PUBLIC_KEYS_FILE;
  const keys: string[] = [];
  if (inline !== undefined) keys.push(...checked("WARDEN_APPROVER_PUBLIC_KEYS", inline, inline.split(",")));
  if (file !== undefined) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (err) {
      throw new ConfigError(`invalid environment variable WARDEN_APPROVER_PUBLIC_KEYS_FILE=${JSON.stringify(file)}: ${(err as Error).message}`);
    }
    keys.push(...checked("WARDEN_APPROVER_PUBLIC_KEYS_FILE", file, text.split(/\r?\n/).filter((l) => !l.trim().startsWith("#"))));
  }
  return [...new Set(keys)];
}

function checked(variable: string, value: string, parts: readonly string[]): string[] {
  const keys = parts.map((p) => p.trim()).filter((p) => p !== "");
  try {
    pinApproverKeys(keys);
  } catch (err) {
    if (!(err instanceof ApproverKeyError)) throw err;
    throw new ConfigError(`invalid environment variable ${variable}=${JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value)}: ${err.message}`);
  }
  return keys;
}
