import { headers } from "@nats-io/transport-node";
import { dlqSubject, STREAM_CALLS } from "@warden/contracts/subjects";
import { sha256Hex } from "@warden/contracts/json";
import type { Bus } from "./bus.js";
import { encodeJson } from "./codec.js";

/** Payloads up to this size are copied into the letter; larger ones are recorded by reference. */
export const DLQ_INLINE_LIMIT = 4 * 1024;

export interface DeadLetter {
  readonly stage: string;
  readonly reason: string;
  readonly subject: string;
  /** The stream the message is kept in (default WARDEN_CALLS). */
  readonly stream?: string;
  readonly streamSeq?: number;
  readonly data: Uint8Array;
}

/** What a letter holds instead of a large payload: where the message is, and what it was. */
export interface DeadLetterReference {
  readonly stream: string;
  readonly seq?: number;
  readonly subject: string;
  readonly sha256: string;
  readonly bytes: number;
}

export interface DlqCopy {
  /** True when this message was already recorded (by another stage, or an earlier retry). */
  readonly duplicate: boolean;
  readonly payload: "copy" | "reference";
}

/**
 * Records a message that a stage cannot process in WARDEN_DLQ, with the reason in headers. A
 * message is recorded once: the letter's Nats-Msg-Id is its stream and sequence, so a retry or a
 * second stage dead-lettering the same message within the DLQ's duplicate window is dropped by the
 * server. A large payload is not copied (it stays in its stream): the letter holds a reference.
 */
export async function copyToDlq(bus: Bus, letter: DeadLetter): Promise<DlqCopy> {
  const stream = letter.stream ?? STREAM_CALLS;
  const sha256 = sha256Hex(letter.data);
  const h = headers();
  h.set("Warden-Dlq-Stage", letter.stage);
  h.set("Warden-Dlq-Reason", letter.reason.slice(0, 1000).replace(/[\r\n]+/g, " "));
  h.set("Warden-Dlq-Subject", letter.subject);
  h.set("Warden-Dlq-Stream", stream);
  if (letter.streamSeq !== undefined) h.set("Warden-Dlq-Seq", String(letter.streamSeq));
  h.set("Warden-Dlq-Sha256", sha256);
  h.set("Warden-Dlq-Bytes", String(letter.data.length));
  const inline = letter.data.length <= DLQ_INLINE_LIMIT;
  h.set("Warden-Dlq-Payload", inline ? "copy" : "reference");
  const reference: DeadLetterReference = {
    stream,
    ...(letter.streamSeq === undefined ? {} : { seq: letter.streamSeq }),
    subject: letter.subject,
    sha256,
    bytes: letter.data.length,
  };
  const body = inline ? letter.data : encodeJson({ ref: reference });
  // without a sequence, the subject and content hash name the message instead
  const msgID = `dlq.${stream}.${letter.streamSeq ?? `${letter.subject}.${sha256}`}`;
  const ack = await bus.js.publish(dlqSubject(letter.stage), body, { headers: h, msgID });
  return { duplicate: ack.duplicate, payload: inline ? "copy" : "reference" };
}
