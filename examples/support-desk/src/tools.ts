import type { Bus } from "@warden/bus";
import type { ExecutableTool } from "@warden/executor";
import { customerTools } from "./tools/customer.js";
import { demoBig, demoFail, demoSlow } from "./tools/demo.js";
import { kbReindex, kbSearch } from "./tools/kb.js";
import { sessionFetch } from "./tools/session.js";
import { ticketTools } from "./tools/ticket.js";

/** The demo's domains: one executor each. */
export const SUPPORT_DESK_DOMAINS = ["kb", "session", "ticket", "customer", "demo"] as const;
export type SupportDeskDomain = (typeof SUPPORT_DESK_DOMAINS)[number];

/** Every support-desk tool by domain; the ticket and customer tools keep their state on `bus`. */
export function supportDeskTools(bus: Bus): Record<SupportDeskDomain, readonly ExecutableTool[]> {
  return {
    kb: [kbSearch, kbReindex],
    session: [sessionFetch],
    ticket: ticketTools(bus),
    customer: customerTools(bus),
    demo: [demoFail, demoSlow, demoBig],
  };
}
