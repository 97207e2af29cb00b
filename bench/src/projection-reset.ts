import { ensureTopology, type Bus } from "@warden/bus";
import { BUCKET_PROJECTOR, consumerName, STREAM_CALLS } from "@warden/contracts/subjects";
import { READ_MODELS } from "@warden/projections";

/**
 * Forgets what the projector process built under the load (its durable, its cursor and lease, the
 * read models), so the replay bench's live projector starts again from sequence 1. Run as the admin
 * with the services stopped; the topology is then created again, empty.
 */
export async function resetProjection(bus: Bus): Promise<void> {
  await bus.jsm.consumers.delete(STREAM_CALLS, consumerName("projector")).catch(() => undefined);
  for (const bucket of new Set([BUCKET_PROJECTOR, ...READ_MODELS.map((m) => m.bucket)])) {
    await (await bus.kvm.open(bucket)).destroy();
  }
  await ensureTopology(bus);
}
