import { connect, credsAuthenticator } from "@nats-io/transport-node";
import type { TestNats } from "@warden/testing";

export interface ConnectionStats {
  readonly name: string;
  /** Subscriptions the server holds for the connection (not what the client thinks it has). */
  readonly subscriptions: number;
}

/** The server's own view of its client connections (CONNZ through the system account). */
export async function serverConnections(nats: TestNats): Promise<ConnectionStats[]> {
  const nc = await connect({ servers: nats.url, authenticator: credsAuthenticator(await nats.home.systemCreds()), name: "test-connz" });
  try {
    const reply = await nc.request("$SYS.REQ.SERVER.PING.CONNZ", new TextEncoder().encode(JSON.stringify({ limit: 4096 })), { timeout: 5_000 });
    const body = reply.json<{ data?: { connections?: { name?: string; subscriptions?: number }[] } }>();
    return (body.data?.connections ?? []).map((c) => ({ name: c.name ?? "", subscriptions: c.subscriptions ?? 0 }));
  } finally {
    await nc.close();
  }
}

/** How many subscriptions the server holds for the one connection of that name. */
export async function subscriptionsOf(nats: TestNats, connectionName: string): Promise<number> {
  const matching = (await serverConnections(nats)).filter((c) => c.name === connectionName);
  if (matching.length !== 1) throw new Error(`expected one connection named ${connectionName}, found ${matching.length}`);
  return matching[0]!.subscriptions;
}
