import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError } from "@warden/bus";
import { approverKeyId } from "@warden/contracts/approval";
import { ApproverKeyError, pinApproverKeys } from "./approver-keys.js";
import { loadApproverKeys } from "./config.js";

function publicKey(): string {
  return generateKeyPairSync("ed25519").publicKey.export({ type: "spki", format: "der" }).toString("base64");
}
const a = publicKey();
const b = publicKey();
const rsa = generateKeyPairSync("rsa", { modulusLength: 1024 }).publicKey.export({ type: "spki", format: "der" }).toString("base64");
const dir = mkdtempSync(join(tmpdir(), "approver-keys-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("pinApproverKeys", () => {
  it("pins each key under the id grants name it by", () => {
    const pinned = pinApproverKeys([a, ` ${b} `]);
    expect(pinned.size).toBe(2);
    const id = approverKeyId(Buffer.from(a, "base64"));
    expect(pinned.get(id)).toBe(a);
    expect(pinned.keyIds).toContain(approverKeyId(Buffer.from(b, "base64")));
    expect(pinned.get("0123456789abcdef")).toBeUndefined();
  });

  it("pins nothing when given nothing", () => {
    expect(pinApproverKeys([]).size).toBe(0);
  });

  it("refuses what is not an Ed25519 public key", () => {
    expect(() => pinApproverKeys(["not base64!"])).toThrow(ApproverKeyError);
    expect(() => pinApproverKeys([Buffer.from("hello").toString("base64")])).toThrow(/SPKI DER/);
    expect(() => pinApproverKeys([a, rsa])).toThrow(/#2 must be Ed25519, not rsa/);
  });
});

describe("loadApproverKeys", () => {
  it("reads comma-separated keys from WARDEN_APPROVER_PUBLIC_KEYS", () => {
    expect(loadApproverKeys({ WARDEN_APPROVER_PUBLIC_KEYS: `${a}, ${b},` })).toEqual([a, b]);
  });

  it("reads one key per line from WARDEN_APPROVER_PUBLIC_KEYS_FILE, skipping blank lines and comments, merged with the inline ones", () => {
    const file = join(dir, "keys");
    writeFileSync(file, `# approver keys\n${a}\n\n${b}\n`);
    expect(loadApproverKeys({ WARDEN_APPROVER_PUBLIC_KEYS_FILE: file })).toEqual([a, b]);
    expect(loadApproverKeys({ WARDEN_APPROVER_PUBLIC_KEYS: b, WARDEN_APPROVER_PUBLIC_KEYS_FILE: file })).toEqual([b, a]);
  });

  it("is empty when neither is set", () => {
    expect(loadApproverKeys({})).toEqual([]);
  });

  it("names the variable when a key is bad or the file cannot be read", () => {
    expect(() => loadApproverKeys({ WARDEN_APPROVER_PUBLIC_KEYS: `${a},${rsa}` })).toThrow(ConfigError);
    expect(() => loadApproverKeys({ WARDEN_APPROVER_PUBLIC_KEYS: `${a},${rsa}` })).toThrow(/^invalid environment variable WARDEN_APPROVER_PUBLIC_KEYS=/);
    expect(() => loadApproverKeys({ WARDEN_APPROVER_PUBLIC_KEYS_FILE: join(dir, "missing") })).toThrow(
      /^invalid environment variable WARDEN_APPROVER_PUBLIC_KEYS_FILE=.*ENOENT/,
    );
  });
});
