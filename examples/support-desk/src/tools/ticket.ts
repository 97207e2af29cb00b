import { z } from "zod";
import { kvGetJson, kvPutJson, type Bus } from "@warden/bus";
import { wardenError } from "@warden/contracts/errors";
import { defineTool, ToolError } from "@warden/executor";
import { openTickets } from "../tickets.js";

const KeyPart = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "letters, digits, '-' and '_' only");
const Fields = z.record(z.string(), z.json());

/** The ticket tools keep their state in the `demo_tickets` bucket of this bus. */
export function ticketTools(bus: Bus) {
  let kv: ReturnType<typeof openTickets> | undefined;
  const tickets = () => (kv ??= openTickets(bus));

  const fill = defineTool({
    name: "ticket.fill",
    // 1.1.0: a preview (the draft before and after) for the approval card; 1.2.0: action type patch
    version: "1.2.0",
    title: "Fill in fields of a ticket draft",
    description:
      "Use when the agent has the ticket page open and you want to pre-fill fields of its draft (priority, category, summary); the agent reviews the draft before anything is submitted.",
    grade: "write",
    actionType: "patch",
    idempotent: true,
    scopes: ["ticket_page"],
    input: z.strictObject({ ticketId: KeyPart, fields: z.record(z.string(), z.unknown()) }),
    handler: async ({ ticketId, fields }) => {
      const store = await tickets();
      const key = `draft.${ticketId}`;
      const existing = await kvGetJson(store, key, Fields);
      const draft = { ...existing?.value, ...Fields.parse(fields) };
      await kvPutJson(store, key, draft);
      return { ticketId, draft };
    },
    // what the person approving sees: the draft as it is and as it would be; it writes nothing
    preview: async ({ ticketId, fields }) => {
      const existing = await kvGetJson(await tickets(), `draft.${ticketId}`, Fields);
      const before = existing?.value ?? {};
      const after = { ...before, ...Fields.parse(fields) };
      const changed = Object.keys(after).filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
      return { ticketId, before, after, changed };
    },
  });

  const submit = defineTool({
    name: "ticket.submit",
    // 1.1.0: undone by ticket.withdraw (warden undo); 1.2.0: action type write
    version: "1.2.0",
    title: "Submit a support ticket",
    description:
      "Use when a customer's problem needs follow-up by the support team: files a new ticket with a title, the details and the customer's id, and returns the ticket id. The team sees it later; it can be edited or closed.",
    grade: "write",
    actionType: "write",
    input: z.strictObject({ title: z.string().min(1), body: z.string(), customerId: KeyPart }),
    handler: async ({ title, body, customerId }, ctx) => {
      const store = await tickets();
      const ticketId = `T-${ctx.callId}`;
      await kvPutJson(store, `ticket.${ticketId}`, { ticketId, title, body, customerId, filedBy: ctx.principal, filedAt: new Date().toISOString() });
      return { ticketId };
    },
    // a ticket filed by mistake is withdrawn with the id the call returned
    compensation: { tool: "ticket.withdraw", args: { ticketId: "$output.ticketId" } },
  });

  const withdraw = defineTool({
    name: "ticket.withdraw",
    // 1.1.0: action type patch
    version: "1.1.0",
    title: "Withdraw a submitted ticket",
    description:
      "Use when a ticket was submitted by mistake: marks it withdrawn so the support team does not work on it; the ticket and its history stay. It undoes ticket.submit.",
    grade: "write",
    actionType: "patch",
    idempotent: true,
    input: z.strictObject({ ticketId: z.string().regex(/^T-[A-Za-z0-9_-]{1,128}$/, "a submitted ticket's id, T-…") }),
    handler: async ({ ticketId }, ctx) => {
      const store = await tickets();
      const key = `ticket.${ticketId}`;
      const existing = await kvGetJson(store, key, Fields);
      if (existing === undefined) throw new ToolError(wardenError("NOT_FOUND", `no ticket ${ticketId}`));
      await kvPutJson(store, key, { ...existing.value, withdrawn: true, withdrawnBy: ctx.principal });
      return { ticketId, withdrawn: true };
    },
  });

  return [fill, submit, withdraw] as const;
}
