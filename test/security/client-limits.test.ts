import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, credsAuthenticator, type NatsConnection } from "@nats-io/transport-node";
import { newId } from "@warden/contracts/events";
import { callEventSubject, inboxPrefixOf, MAX_REQUEST_BYTES, STREAM_CALLS, SUBJECT_REGISTRY_CHANGED } from "@warden/contracts/subjects";
import { type IdentitySpecInput } from "@warden/contracts/permissions";
import { DEFAULT_LIMITS } from "@warden/identity";
import { eventually, startTestNats, type TestNats } from "@warden/testing";
import { serverConnections, subscriptionsOf } from "./server-connections.js";

/**
 * Issue 25: an agent could open 30,000 subscriptions; no account or user had any limit. The JWTs
 * now carry them (libs/identity/src/limits.ts) and the server enforces them.
 */

/** A bare connection with the identity's credentials, as an attacker's own client would make it (no reconnects). */
async function rawConnection(nats: TestNats, spec: IdentitySpecInput, name: string): Promise<NatsConnection> {
  const creds = readFileSync(await nats.credsOf(spec));
  return connect({ servers: nats.url, authenticator: credsAuthenticator(creds), name, reconnect: false });
}

/** What the server reported on the connection (`-ERR`s arrive as status errors; the connection may stay). */
function serverErrors(nc: NatsConnection): string[] {
  const seen: string[] = [];
  void (async () => {
    for await (const s of nc.status()) if (s.type === "error") seen.push(String(s.error.message));
  })();
  return seen;
}

describe("subscription and payload limits, enforced by the server", () => {
  let nats: TestNats;
  beforeAll(async () => {
    nats = await startTestNats();
  });
  afterAll(async () => nats.stop());

  it("refuses an agent's 1,001st subscription; the first 1,000 work and the connection stays", async () => {
    expect(DEFAULT_LIMITS.clientSubscriptions).toBe(1_000);
    const nc = await rawConnection(nats, { kind: "agent", name: "sub-flooder" }, "sub-flooder");
    const errors = serverErrors(nc);
    // 999 under its own inbox prefix, the 1,000th on the registry's change cue, which the admin can publish on
    for (let i = 0; i < 999; i++) nc.subscribe(`${inboxPrefixOf("sub-flooder")}.s${i}`, { callback: () => undefined });
    let thousandth = 0;
    nc.subscribe(SUBJECT_REGISTRY_CHANGED, {
      callback: () => {
        thousandth++;
      },
    });
    await nc.flush();
    expect(await subscriptionsOf(nats, "sub-flooder")).toBe(1_000);
    expect(errors).toEqual([]);

    let over = 0;
    nc.subscribe(SUBJECT_REGISTRY_CHANGED, {
      callback: () => {
        over++;
      },
    });
    await nc.flush();
    await eventually(() => expect(errors.join("\n")).toMatch(/maximum subscriptions exceeded/i));
    expect(await subscriptionsOf(nats, "sub-flooder")).toBe(1_000);

    // the same subject on both: the server delivers to the 1,000th and has no 1,001st to deliver to
    const admin = await nats.bus("limits-admin");
    admin.nc.publish(SUBJECT_REGISTRY_CHANGED, new TextEncoder().encode(JSON.stringify({ change: "tools" })));
    await admin.nc.flush();
    await eventually(() => expect(thousandth).toBe(1));
    await nc.flush();
    expect(over).toBe(0);
    expect(nc.isClosed()).toBe(false);
    await nc.close();
  });

  it("lets a service hold more (its cap is the Warden account's): the policy service's 1,100 subscriptions all hold", async () => {
    const nc = await rawConnection(nats, { kind: "service", name: "policy", role: "policy" }, "policy-subs");
    const errors = serverErrors(nc);
    for (let i = 0; i < 1_100; i++) nc.subscribe(`warden.call.limits.s${i}.ToolCallStarted`, { callback: () => undefined });
    await nc.flush();
    expect(await subscriptionsOf(nats, "policy-subs")).toBe(1_100);
    expect(errors).toEqual([]);
    await nc.close();
  });

  it("closes an agent's connection that publishes more than its payload limit, storing none of it; a request-sized message goes through", async () => {
    expect(DEFAULT_LIMITS.clientPayloadBytes).toBe(2 * MAX_REQUEST_BYTES);
    const admin = await nats.bus("payload-admin");
    const stored = async (subject: string) => (await admin.jsm.direct.getMessage(STREAM_CALLS, { last_by_subj: subject })) !== null;
    const nc = await rawConnection(nats, { kind: "agent", name: "big-sender" }, "big-sender");
    const errors = serverErrors(nc);
    // the server tells the connection its own limit, so a well-behaved client refuses first
    expect(nc.info?.max_payload).toBe(DEFAULT_LIMITS.clientPayloadBytes);
    const fits = callEventSubject("kb", newId(), "ToolCallRequested", "big-sender");
    nc.publish(fits, new Uint8Array(MAX_REQUEST_BYTES + 1_024));
    await nc.flush();
    expect(nc.isClosed()).toBe(false);
    await eventually(async () => expect(await stored(fits)).toBe(true));

    // an attacker's client need not check: lift this client's own check and send one byte more
    Object.assign(nc.info!, { max_payload: 64 * 1024 * 1024 });
    const closed = nc.closed();
    const over = callEventSubject("kb", newId(), "ToolCallRequested", "big-sender");
    nc.publish(over, new Uint8Array(DEFAULT_LIMITS.clientPayloadBytes + 1));
    const why = String((await closed)?.message ?? "");
    // the server's -ERR races its close of the socket: either may reach the client first
    expect(`${errors.join("\n")}\n${why}`).toMatch(/maximum payload violation|ECONNRESET|EPIPE/i);
    expect((await serverConnections(nats)).map((c) => c.name)).not.toContain("big-sender");
    expect(await stored(over)).toBe(false);
  });

  it("lets a service publish an event-sized message the clients may not", async () => {
    const nc = await rawConnection(nats, { kind: "service", name: "registry", role: "registry" }, "registry-payload");
    nc.publish(`_INBOX.limits.${newId()}`, new Uint8Array(DEFAULT_LIMITS.clientPayloadBytes + 1));
    await nc.flush();
    expect(nc.isClosed()).toBe(false);
    await nc.close();
  });
});

describe("connection limits, enforced by the server; and no subscription limit, as before", () => {
  let nats: TestNats;
  beforeAll(async () => {
    // a home that allows two client connections, so the third is the one over, and any number of subscriptions
    nats = await startTestNats({ limits: { clientConnections: 2, clientSubscriptions: -1 } });
  });
  afterAll(async () => nats.stop());

  it("the control: without the limit, as the JWTs were minted before, an agent's 1,001st subscription holds", async () => {
    const nc = await rawConnection(nats, { kind: "agent", name: "unlimited" }, "unlimited");
    const errors = serverErrors(nc);
    for (let i = 0; i < 1_001; i++) nc.subscribe(`${inboxPrefixOf("unlimited")}.s${i}`, { callback: () => undefined });
    await nc.flush();
    expect(await subscriptionsOf(nats, "unlimited")).toBe(1_001);
    expect(errors).toEqual([]);
    await nc.close();
    // gone from the server before the next test counts the account's connections
    await eventually(async () => expect((await serverConnections(nats)).map((c) => c.name)).not.toContain("unlimited"));
  });

  it("refuses a clients-account connection past the account's limit, and leaves the Warden account's alone", async () => {
    const first = await rawConnection(nats, { kind: "agent", name: "conn-a" }, "conn-a");
    const second = await rawConnection(nats, { kind: "human", name: "conn-b" }, "conn-b");
    // the server refuses it at connect (its -ERR may race the socket's close: "write EPIPE")
    const third = await rawConnection(nats, { kind: "agent", name: "conn-c" }, "conn-c").then(
      async (nc) => String((await nc.closed())?.message ?? "closed by the server"),
      (err: unknown) => String((err as Error).message ?? err),
    );
    expect(third).toMatch(/maximum account active connections exceeded|EPIPE|ECONNRESET|closed by the server/i);
    const held = (await serverConnections(nats)).map((c) => c.name);
    expect(held).toEqual(expect.arrayContaining(["conn-a", "conn-b"]));
    expect(held).not.toContain("conn-c");
    const service = await rawConnection(nats, { kind: "service", name: "projector", role: "projector" }, "projector-conn");
    expect(service.isClosed()).toBe(false);

    // the control: the same credentials connect once a client connection is free
    await first.close();
    await eventually(async () => expect((await serverConnections(nats)).map((c) => c.name)).not.toContain("conn-a"));
    const later = await rawConnection(nats, { kind: "agent", name: "conn-c" }, "conn-c-later");
    await later.flush();
    expect(later.isClosed()).toBe(false);
    await Promise.all([later.close(), second.close(), service.close()]);
  });
});
