import { busFromConnection, loadBusConfig } from "@warden/bus";
import { connect } from "@nats-io/transport-node";
import { readStream, replayStream } from "@warden/projector";
const nc = await connect({ servers: "nats://127.0.0.1:14222", noAsyncTraces: true });
const bus = await busFromConnection(nc, loadBusConfig({ NATS_URL: "nats://127.0.0.1:14222" }));
for (const batch of [2048, 10000]) {
  let t0 = performance.now();
  const r = await readStream(bus, { batch }, () => undefined);
  console.log("raw batch", batch, (r.read / ((performance.now() - t0) / 1000)).toFixed(0));
}
let t0 = performance.now();
const rp = await replayStream(bus);
console.log("replay", (rp.read / ((performance.now() - t0) / 1000)).toFixed(0));
await bus.close();
