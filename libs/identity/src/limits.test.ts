import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { decode, parseCreds } from "@nats-io/jwt";
import { DEFAULT_LIMITS } from "./limits.js";
import { openWardenHome } from "./warden-home.js";

interface Claims {
  readonly nats: { readonly subs?: number; readonly payload?: number; readonly limits?: { readonly conn?: number; readonly subs?: number; readonly payload?: number; readonly leaf?: number } };
}

const dirs: string[] = [];
const home = () => {
  const dir = mkdtempSync(join(tmpdir(), "warden-limits-"));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function userClaims(credsPath: string): Promise<Claims> {
  return decode<Claims["nats"]>((await parseCreds(readFileSync(credsPath))).jwt) as unknown as Claims;
}

async function accountClaims(h: ReturnType<typeof openWardenHome>, name: string): Promise<Claims | undefined> {
  const accounts = Object.values((await h.jwts()).accounts).map((j) => decode<Claims["nats"]>(j) as unknown as Claims & { name: string });
  return accounts.find((a) => a.name === name);
}

describe("the JWTs' limits", () => {
  it("mints each identity with its account's limits, the registry's subscriptions left open", async () => {
    const h = openWardenHome(home());
    const agent = await userClaims((await h.addIdentity({ kind: "agent", name: "bot" })).creds);
    expect(agent.nats).toMatchObject({ subs: DEFAULT_LIMITS.clientSubscriptions, payload: DEFAULT_LIMITS.clientPayloadBytes });
    const policy = await userClaims((await h.addIdentity({ kind: "service", name: "policy", role: "policy" })).creds);
    expect(policy.nats).toMatchObject({ subs: DEFAULT_LIMITS.serviceSubscriptions, payload: DEFAULT_LIMITS.wardenPayloadBytes });
    const registry = await userClaims((await h.addIdentity({ kind: "service", name: "registry", role: "registry" })).creds);
    expect(registry.nats).toMatchObject({ subs: -1 });
    expect((await accountClaims(h, "CLIENTS"))?.nats.limits).toMatchObject({ conn: 1_000, subs: 1_000, payload: DEFAULT_LIMITS.clientPayloadBytes, leaf: 0 });
    // every connection gets the lower of its user's and its account's cap: the Warden account's lets the registry's through
    expect((await accountClaims(h, "WARDEN"))?.nats.limits).toMatchObject({ conn: 1_000, subs: -1, payload: DEFAULT_LIMITS.wardenPayloadBytes, leaf: 0 });
  });

  it("keeps a home's own limits in env.json, for identities minted and account JWTs pushed later", async () => {
    const dir = home();
    openWardenHome(dir, { limits: { clientSubscriptions: 50, clientConnections: 20 } });
    const later = openWardenHome(dir);
    expect(later.env().limits).toMatchObject({ clientSubscriptions: 50, clientConnections: 20, serviceSubscriptions: DEFAULT_LIMITS.serviceSubscriptions });
    expect((await userClaims((await later.addIdentity({ kind: "human", name: "alice" })).creds)).nats).toMatchObject({ subs: 50 });
    expect((await accountClaims(later, "CLIENTS"))?.nats.limits).toMatchObject({ conn: 20, subs: 50 });
  });
});
