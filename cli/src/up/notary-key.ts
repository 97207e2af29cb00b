import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { HEAD_LOG_FILE } from "@warden/notary";
import { generateSigningKeyPair, publicKeyOf } from "@warden/service-kit";
import type { WardenHome } from "@warden/identity";

const KEY_FILE = "notary.pem";

/**
 * The notary's key folder: WARDEN_NOTARY_HOME, or `<WARDEN_HOME>.notary` beside the home. Not
 * inside it, so whatever reads or copies the home (the admin's credentials, a backup, a tool that
 * found the home) does not get the key that re-seals history; not a per-user XDG folder, so each
 * home keeps its own notary and a test's temporary home never shares one. In production it is on
 * another host or in an HSM/KMS (docs/audit.md, Key custody).
 */
export function notaryHomeDir(env: NodeJS.ProcessEnv, homeDir: string): string {
  const given = env["WARDEN_NOTARY_HOME"];
  return given === undefined || given === "" ? `${resolve(homeDir)}.notary` : resolve(given);
}

export interface NotaryKey {
  readonly privateKeyPem: string;
  readonly publicKeyDerBase64: string;
  readonly keyFile: string;
  /** Where the notary appends every checkpoint it writes (its head log). */
  readonly headLogFile: string;
  /** What was moved out of the home, to tell the operator. */
  readonly moved?: string;
}

/**
 * The notary's signing key (`<dir>/notary.pem`, folder 0700, key 0600); its public half is what
 * auditors pin. A home made before keys were kept apart has `keys/notary.pem`: it is moved out
 * (or, when the folder already has a key, retired there) and stays pinned, so the checkpoints it
 * signed still verify. A key once pinned stays pinned.
 */
export function notarySigningKey(home: WardenHome, dir: string): NotaryKey {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const keyFile = join(dir, KEY_FILE);
  const inHome = join(home.dir, "keys", KEY_FILE);
  let moved: string | undefined;
  if (existsSync(inHome)) {
    const old = publicKeyOf(readFileSync(inHome, "utf8"));
    const target = existsSync(keyFile) ? join(dir, `retired-${old.keyId}.pem`) : keyFile;
    pin(home, old.publicKeyDerBase64);
    moveFile(inHome, target);
    chmodSync(target, 0o600);
    moved = `moved the notary's key out of the home: ${inHome} is now ${target} (its public key stays pinned)`;
  }
  if (!existsSync(keyFile)) writeFileSync(keyFile, generateSigningKeyPair().privateKeyPem, { mode: 0o600 });
  chmodSync(keyFile, 0o600);
  const privateKeyPem = readFileSync(keyFile, "utf8");
  const { publicKeyDerBase64 } = publicKeyOf(privateKeyPem);
  pin(home, publicKeyDerBase64);
  return { privateKeyPem, publicKeyDerBase64, keyFile, headLogFile: join(dir, HEAD_LOG_FILE), ...(moved ? { moved } : {}) };
}

function pin(home: WardenHome, publicKeyDerBase64: string): void {
  const pinned = home.env().notaryPublicKeys;
  if (!pinned.includes(publicKeyDerBase64)) home.setNotaryPublicKeys([...pinned, publicKeyDerBase64]);
}

/** A rename, or a copy and unlink across file systems: the home keeps no copy. */
function moveFile(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EXDEV") throw err;
    copyFileSync(from, to);
    unlinkSync(from);
  }
}
