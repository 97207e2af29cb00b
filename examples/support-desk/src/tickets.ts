import type { Bus, KV as Kv } from "@warden/bus";

/** The demo's ticket system: drafts (`draft.<ticketId>`) and submitted tickets (`ticket.<ticketId>`). */
export const BUCKET_DEMO_TICKETS = "demo_tickets";


export function openTickets(bus: Bus): Promise<Kv> {
  return bus.kvm.create(BUCKET_DEMO_TICKETS, { history: 5, replicas: bus.config.WARDEN_REPLICAS });
}
