import { describe, expect, it } from "vitest";
import { createAccount, createUser, encodeUser, fmtCreds } from "@nats-io/jwt";
import { identityOfCreds } from "./bus.js";

async function credsNamed(name: string): Promise<Uint8Array> {
  const user = createUser();
  return fmtCreds(await encodeUser(name, user, createAccount()), user);
}

describe("identityOfCreds", () => {
  it("reads the user name a credentials file was minted with", async () => {
    expect(identityOfCreds(await credsNamed("support-bot"))).toBe("support-bot");
  });

  it("gives no identity for a name that is not a safe subject token, or for a file that holds no user JWT", async () => {
    expect(identityOfCreds(await credsNamed("a.b"))).toBeUndefined();
    expect(identityOfCreds(await credsNamed(">"))).toBeUndefined();
    expect(identityOfCreds(new TextEncoder().encode("not a creds file"))).toBeUndefined();
  });
});
