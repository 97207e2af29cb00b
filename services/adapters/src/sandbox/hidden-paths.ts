import { resolve } from "node:path";

/**
 * What a tool's sandbox never shows, whatever roots it declares: WARDEN_HOME (every identity's
 * credentials, the trust root; default ./.warden), the secrets file, the signing-key and notary
 * folders and the adapters' own credentials.
 */
export function hiddenPaths(env: Readonly<Record<string, string | undefined>>, secretsFile?: string): string[] {
  const given = [
    env["WARDEN_HOME"] || ".warden",
    secretsFile,
    env["WARDEN_SECRETS_FILE"],
    env["NATS_CREDS"],
    env["WARDEN_APPROVER_SIGNING_KEY_FILE"],
    env["WARDEN_NOTARY_SIGNING_KEY_FILE"],
    env["WARDEN_NOTARY_HOME"],
  ];
  return [...new Set(given.filter((p): p is string => p !== undefined && p !== "").map((p) => resolve(p)))];
}
