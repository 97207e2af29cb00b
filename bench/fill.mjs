import { busFromConnection, loadBusConfig, ensureTopology, appendEvent } from "@warden/bus";
import { connect } from "@nats-io/transport-node";
import { newId } from "@warden/contracts";
import { syntheticCall, SYNTHETIC_OUTCOMES } from "@warden/projections";
const nc = await connect({ servers: "nats://127.0.0.1:14222", noAsyncTraces: true });
const bus = await busFromConnection(nc, loadBusConfig({ NATS_URL: "nats://127.0.0.1:14222" }));
await ensureTopology(bus);
let added = 0; const w = [];
for (let i = 0; added < 100000; i++) {
  const ev = syntheticCall({ callId: newId(), outcome: SYNTHETIC_OUTCOMES[i % 9], runId: `r${i % 100}`, tool: i % 3 === 0 ? "customer.message" : "kb.search", at: new Date() });
  w.push((async () => { for (const e of ev) await appendEvent(bus, e); })()); added += ev.length;
  if (w.length >= 256) await Promise.all(w.splice(0));
}
await Promise.all(w);
console.log("added", added);
await bus.close();
