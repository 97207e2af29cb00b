import { checkpointHash, checkpointStatement, signCheckpoint, type Checkpoint, type CheckpointSigner } from "./checkpoint.js";
import { eventLeaf } from "./merkle.js";
import type { StoredMessage } from "./verify-evidence.js";

/**
 * Messages read from the stream with no gap, sealed as a notary seals them: checkpoints of `per`
 * messages each, chained from #0, signed by `signer`. For benches and tests that need evidence
 * without running a notary (which cuts its checkpoints by time and size instead).
 */
export function sealMessages(messages: readonly StoredMessage[], per: number, signer: CheckpointSigner, sealedAt: Date): Checkpoint[] {
  const out: Checkpoint[] = [];
  for (let i = 0; i < messages.length; i += per) {
    const range = messages.slice(i, i + per);
    const prev = out.at(-1);
    const statement = checkpointStatement({
      index: out.length,
      fromSeq: range[0]!.seq,
      toSeq: range.at(-1)!.seq,
      missing: [],
      leaves: range.map((m) => eventLeaf(m.subject, m.data)),
      prev: prev === undefined ? null : checkpointHash(prev.statement),
      sealedAt,
    });
    out.push(signCheckpoint(statement, signer));
  }
  return out;
}
