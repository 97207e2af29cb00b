import { headers } from "@nats-io/transport-node";
import { dlqSubject } from "@warden/contracts";
import type { Bus } from "./bus.js";

export interface DeadLetter {
  readonly stage: string;
  readonly reason: string;
  readonly subject: string;
  readonly streamSeq?: number;
  readonly data: Uint8Array;
}

/** Copies a message that a stage cannot process to WARDEN_DLQ, with the reason in headers. */
export async function copyToDlq(bus: Bus, letter: DeadLetter): Promise<void> {
  const h = headers();
  h.set("Warden-Dlq-Stage", letter.stage);
  h.set("Warden-Dlq-Reason", letter.reason.slice(0, 1000).replace(/[\r\n]+/g, " "));
  h.set("Warden-Dlq-Subject", letter.subject);
  if (letter.streamSeq !== undefined) h.set("Warden-Dlq-Seq", String(letter.streamSeq));
  await bus.js.publish(dlqSubject(letter.stage), letter.data, { headers: h });
}
