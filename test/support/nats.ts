import { connect } from "@nats-io/transport-node";
import { busFromConnection, ensureTopology, loadBusConfig, NATS_INSTALL_HINT, startNatsServer, type Bus } from "@warden/bus";

export interface TestNats {
  readonly url: string;
  /** A new connection with the topology in place. */
  bus(name?: string): Promise<Bus>;
  stop(): Promise<void>;
}

/**
 * A real nats-server for one suite: NATS_URL when set, else a `nats-server` from PATH on a free
 * port with a temp store dir. No Docker engine runs on CI machines, so testcontainers is not used.
 */
export async function startTestNats(): Promise<TestNats> {
  let url = process.env["NATS_URL"];
  let stopServer = async () => {};
  if (!url) {
    try {
      const server = await startNatsServer();
      url = server.url;
      stopServer = () => server.stop();
    } catch (err) {
      throw new Error(`tests need a real nats-server: ${NATS_INSTALL_HINT}\n(${(err as Error).message})`);
    }
  }
  const buses: Bus[] = [];
  const serverUrl = url;
  let topologyReady = false;
  return {
    url: serverUrl,
    async bus(name = "test") {
      const nc = await connect({ servers: serverUrl, name, noAsyncTraces: true });
      const bus = await busFromConnection(nc, loadBusConfig({ NATS_URL: serverUrl }));
      if (!topologyReady) {
        await ensureTopology(bus);
        topologyReady = true;
      }
      buses.push(bus);
      return bus;
    },
    async stop() {
      await Promise.allSettled(buses.map((b) => b.close()));
      await stopServer();
    },
  };
}
