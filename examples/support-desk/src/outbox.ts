import { z } from "zod";
import { entryToJson, type Bus, type KV as Kv } from "@warden/bus";

/** The demo's outbox: every customer message really sent, so anyone can check. Key `<customerId>.<callId>`. */
export const BUCKET_DEMO_OUTBOX = "demo_outbox";

export const OutboxMessageSchema = z.object({
  customerId: z.string(),
  text: z.string(),
  callId: z.string(),
  principal: z.string(),
  sentAt: z.iso.datetime(),
});
export type OutboxMessage = z.infer<typeof OutboxMessageSchema>;


export function openOutbox(bus: Bus): Promise<Kv> {
  return bus.kvm.create(BUCKET_DEMO_OUTBOX, { history: 1, replicas: bus.config.WARDEN_REPLICAS });
}

/** Every message in the outbox, oldest first; empty when nothing was ever sent. */
export async function readOutbox(bus: Bus): Promise<OutboxMessage[]> {
  const kv = await openOutbox(bus);
  const keys: string[] = [];
  for await (const k of await kv.keys()) keys.push(k);
  const entries = await Promise.all(keys.map((k) => kv.get(k)));
  return entries
    .flatMap((e) => {
      const m = e ? entryToJson(e, OutboxMessageSchema) : undefined;
      return m ? [m.value] : [];
    })
    .sort((a, b) => a.sentAt.localeCompare(b.sentAt) || a.callId.localeCompare(b.callId));
}
