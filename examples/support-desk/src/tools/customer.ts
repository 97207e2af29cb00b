import { z } from "zod";
import { kvCreateJson, type Bus } from "@warden/bus";
import { defineTool } from "@warden/executor";
import { openOutbox, type OutboxMessage } from "../outbox.js";

/** Sending appends to the `demo_outbox` bucket of this bus: the demo's stand-in for email. */
export function customerTools(bus: Bus) {
  let kv: ReturnType<typeof openOutbox> | undefined;
  const outbox = () => (kv ??= openOutbox(bus));

  const message = defineTool({
    name: "customer.message",
    // 1.1.0: action type external_send (permission level L4, external_write); 1.2.0: the approver's summary line
    version: "1.2.0",
    title: "Send a message to a customer",
    description:
      "Use when the customer must be told something (an answer, a refund confirmation, a request for details). The customer reads it at once and it cannot be taken back, so a person approves every message.",
    grade: "send",
    actionType: "external_send",
    openWorld: true,
    approvalSummary: "Send to {customerId}: {text}",
    input: z.strictObject({ customerId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/), text: z.string().min(1).max(4_000) }),
    handler: async ({ customerId, text }, ctx) => {
      const store = await outbox();
      const key = `${customerId}.${ctx.callId}`;
      const sent: OutboxMessage = { customerId, text, callId: ctx.callId, principal: ctx.principal, sentAt: new Date().toISOString() };
      // create, not put: one message per call, even if the handler were run again
      const created = await kvCreateJson(store, key, sent);
      return { delivered: true, customerId, messageId: key, duplicate: !created };
    },
  });

  return [message] as const;
}
