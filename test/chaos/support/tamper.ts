import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import type { Bus } from "@warden/bus";
import { CALLS_SUBJECTS, STREAM_CALLS } from "@warden/contracts/subjects";

/**
 * What an operator with the admin's credentials can do to the history: WARDEN_CALLS refuses
 * message deletes and purges, so the admin deletes the whole stream, creates it again with the
 * same configuration and publishes back every message but the request of `dropCallId`. Used only
 * to prove that the end checks see a lost acknowledged request.
 */
export async function rebuildCallStreamWithout(admin: Bus, dropCallId: string): Promise<{ republished: number; dropped: number }> {
  const info = await admin.jsm.streams.info(STREAM_CALLS);
  const kept: { subject: string; data: Uint8Array }[] = [];
  let dropped = 0;
  const consumer = await admin.js.consumers.getPushConsumer(STREAM_CALLS, { filter_subjects: CALLS_SUBJECTS, deliver_policy: "all" as const });
  const messages = await consumer.consume();
  try {
    for await (const m of messages) {
      const [, , , callId, slot] = m.subject.split(".");
      if (callId === dropCallId && slot === "ToolCallRequested") dropped++;
      else kept.push({ subject: m.subject, data: m.data });
      if (m.seq >= info.state.last_seq) break;
    }
  } finally {
    void messages.close().catch(() => undefined);
  }
  await admin.jsm.streams.delete(STREAM_CALLS);
  await admin.jsm.streams.add({ ...info.config });
  for (let i = 0; i < kept.length; i += 256) {
    await Promise.all(kept.slice(i, i + 256).map((m) => admin.js.publish(m.subject, m.data)));
  }
  return { republished: kept.length, dropped };
}

/** A run-once side effect that went around Warden: a line in the effects file no call recorded. */
export function effectOutsideWarden(effectsFile: string, callId: string): void {
  appendFileSync(effectsFile, `${callId} outside\n`);
}

/** Removes a call's side-effect line, as if its tool had reported success without acting. */
export function forgetEffect(effectsFile: string, callId: string): void {
  const lines = readFileSync(effectsFile, "utf8").split("\n");
  writeFileSync(effectsFile, lines.filter((l) => l.split(" ")[0] !== callId).join("\n"));
}
