import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openWardenHome } from "@warden/identity";
import { generateSigningKeyPair, publicKeyOf } from "@warden/service-kit";
import { notaryHomeDir, notarySigningKey } from "./notary-key.js";

describe("the notary's key folder", () => {
  const dirs: string[] = [];
  const scratch = () => {
    const d = mkdtempSync(join(tmpdir(), "warden-notary-key-"));
    dirs.push(d);
    return d;
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it("lives beside the home, not in it, unless WARDEN_NOTARY_HOME says where", () => {
    expect(notaryHomeDir({}, "/srv/warden/.warden")).toBe("/srv/warden/.warden.notary");
    expect(notaryHomeDir({ WARDEN_NOTARY_HOME: "/var/lib/warden-notary" }, "/srv/warden/.warden")).toBe("/var/lib/warden-notary");
  });

  it("makes the key in a 0700 folder as a 0600 file, pins its public half, and leaves nothing of it in the home", () => {
    const root = scratch();
    const home = openWardenHome(join(root, "home"));
    const dir = notaryHomeDir({}, home.dir);
    const key = notarySigningKey(home, dir);
    expect(key.keyFile).toBe(join(root, "home.notary", "notary.pem"));
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(key.keyFile).mode & 0o777).toBe(0o600);
    expect(key.headLogFile).toBe(join(dir, "heads.jsonl"));
    expect(existsSync(join(home.dir, "keys", "notary.pem"))).toBe(false);
    expect(home.env().notaryPublicKeys).toEqual([key.publicKeyDerBase64]);
    // the same key on the next start
    expect(notarySigningKey(home, dir).publicKeyDerBase64).toBe(key.publicKeyDerBase64);
  });

  it("moves an older home's keys/notary.pem out and keeps it pinned, so its checkpoints still verify", () => {
    const root = scratch();
    const home = openWardenHome(join(root, "home"));
    const old = generateSigningKeyPair();
    writeFileSync(join(home.dir, "keys", "notary.pem"), old.privateKeyPem, { mode: 0o600 });
    home.setNotaryPublicKeys([old.publicKeyDerBase64]);
    const key = notarySigningKey(home, notaryHomeDir({}, home.dir));
    expect(key.moved).toMatch(/moved the notary's key out of the home/);
    expect(key.publicKeyDerBase64).toBe(old.publicKeyDerBase64);
    expect(existsSync(join(home.dir, "keys", "notary.pem"))).toBe(false);
    expect(home.env().notaryPublicKeys).toEqual([old.publicKeyDerBase64]);
  });

  it("retires a home's key into the folder when the folder already has one, and pins both", () => {
    const root = scratch();
    const home = openWardenHome(join(root, "home"));
    const dir = notaryHomeDir({}, home.dir);
    const current = notarySigningKey(home, dir);
    const old = generateSigningKeyPair();
    writeFileSync(join(home.dir, "keys", "notary.pem"), old.privateKeyPem, { mode: 0o600 });
    const key = notarySigningKey(home, dir);
    expect(key.publicKeyDerBase64).toBe(current.publicKeyDerBase64);
    const retired = join(dir, `retired-${publicKeyOf(old.privateKeyPem).keyId}.pem`);
    expect(readFileSync(retired, "utf8")).toBe(old.privateKeyPem);
    expect(existsSync(join(home.dir, "keys", "notary.pem"))).toBe(false);
    expect(home.env().notaryPublicKeys.sort()).toEqual([current.publicKeyDerBase64, old.publicKeyDerBase64].sort());
  });
});
