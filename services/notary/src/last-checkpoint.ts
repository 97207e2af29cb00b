import { getNewestMessage, isNotFound, type Bus } from "@warden/bus";
import { NOTARY_CHECKPOINT_SUBJECT, STREAM_NOTARY } from "@warden/contracts/subjects";
import { CheckpointSchema, type Checkpoint } from "@warden/evidence";

export interface StoredCheckpoint {
  readonly checkpoint: Checkpoint;
  /** Its sequence in WARDEN_NOTARY. */
  readonly seq: number;
}

/** The checkpoint written last, or undefined when there is none yet. Throws on one that is not a checkpoint. */
export async function lastCheckpoint(bus: Bus): Promise<StoredCheckpoint | undefined> {
  // a lagging replica would answer an older checkpoint: the chain would be forked from it
  const m = await getNewestMessage(bus, STREAM_NOTARY, { last_by_subj: NOTARY_CHECKPOINT_SUBJECT }).catch((err: unknown) => {
    if (isNotFound(err)) return null;
    throw err;
  });
  if (m === null) return undefined;
  const parsed = CheckpointSchema.safeParse(m.json());
  // chaining onto something that is not a checkpoint would hide it: an operator must look
  if (!parsed.success) throw new Error(`the last message on ${NOTARY_CHECKPOINT_SUBJECT} (seq ${m.seq}) is not a checkpoint: ${parsed.error.issues[0]?.message ?? "invalid"}`);
  return { checkpoint: parsed.data, seq: m.seq };
}

/** Every checkpoint in the order written (an auditor's read). Messages that are not checkpoints are returned apart. */
export async function readCheckpoints(bus: Bus): Promise<{ checkpoints: StoredCheckpoint[]; invalid: { seq: number; reason: string }[] }> {
  const checkpoints: StoredCheckpoint[] = [];
  const invalid: { seq: number; reason: string }[] = [];
  const info = await bus.jsm.streams.info(STREAM_NOTARY);
  if (info.state.messages === 0) return { checkpoints, invalid };
  const consumer = await bus.js.consumers.getPushConsumer(STREAM_NOTARY, { filter_subjects: NOTARY_CHECKPOINT_SUBJECT, deliver_policy: "all" as const });
  const messages = await consumer.consume();
  try {
    for await (const m of messages) {
      const parsed = CheckpointSchema.safeParse(safeJson(m.data));
      if (parsed.success) checkpoints.push({ checkpoint: parsed.data, seq: m.seq });
      else invalid.push({ seq: m.seq, reason: parsed.error.issues[0]?.message ?? "invalid" });
      if (m.seq >= info.state.last_seq) break;
    }
  } finally {
    void messages.close();
  }
  return { checkpoints, invalid };
}

function safeJson(data: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(data));
  } catch {
    return undefined;
  }
}
