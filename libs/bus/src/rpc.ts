import type { Msg, Subscription } from "@nats-io/transport-node";
import { ReplySchema, wardenError, type Reply, type WardenError } from "@warden/contracts";
import type { Bus } from "./bus.js";
import { decodeJson, encodeJson } from "./codec.js";
import type { Logger } from "./logger.js";

export type RpcHandler = (payload: unknown, msg: Msg) => Promise<Reply>;

/** Serves a request-reply subject in a queue group; handler errors become INTERNAL replies. */
export function serveRpc(bus: Bus, subject: string, queue: string, log: Logger, handler: RpcHandler): Subscription {
  return bus.nc.subscribe(subject, {
    queue,
    callback: (err, msg) => {
      if (err) {
        log.error({ err, subject }, "rpc subscription error");
        return;
      }
      void (async () => {
        let reply: Reply;
        const decoded = decodeJson(msg.data);
        if (!decoded.ok) reply = { ok: false, error: wardenError("INVALID_REQUEST", decoded.reason) };
        else {
          try {
            reply = await handler(decoded.value, msg);
          } catch (e) {
            log.error({ err: e, subject: msg.subject }, "rpc handler failed");
            reply = { ok: false, error: wardenError("INTERNAL", (e as Error).message) };
          }
        }
        if (msg.reply) msg.respond(encodeJson(reply));
      })();
    },
  });
}

/** Sends a request; no responder, a timeout or a garbled answer come back as an error value. */
export async function requestRpc(bus: Bus, subject: string, payload: unknown, timeoutMs = 5_000): Promise<Reply> {
  let msg: Msg;
  try {
    msg = await bus.nc.request(subject, encodeJson(payload), { timeout: timeoutMs });
  } catch (err) {
    return { ok: false, error: unavailable(subject, err) };
  }
  const decoded = decodeJson(msg.data);
  if (!decoded.ok) return { ok: false, error: wardenError("INTERNAL", `bad reply from ${subject}: ${decoded.reason}`) };
  const parsed = ReplySchema.safeParse(decoded.value);
  return parsed.success ? parsed.data : { ok: false, error: wardenError("INTERNAL", `bad reply from ${subject}`) };
}

function unavailable(subject: string, err: unknown): WardenError {
  const text = (err as Error).message ?? String(err);
  return wardenError("UNAVAILABLE", `no answer on ${subject} (${text}); is the service running?`);
}
