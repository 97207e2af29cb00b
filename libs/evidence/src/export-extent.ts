import { checkCheckpointSignature, checkpointHash, pinKeys, type Checkpoint } from "./checkpoint.js";
import type { ParsedExport } from "./export-file.js";
import { checkExportTrailerSignature, checkpointRef, type CheckpointRef } from "./export-trailer.js";
import type { EvidenceFinding } from "./findings.js";

export interface ExportExtentInput {
  readonly parsed: ParsedExport;
  /** Public keys (SPKI DER, base64) pinned at provisioning. */
  readonly notaryKeys: readonly string[];
  /** The checkpoints of the notary's head log (`--head`), copied out of the notary's folder. */
  readonly head?: readonly Checkpoint[];
}

/**
 * Whether an export is whole: it ends with the notary's trailer, the trailer's digest covers every
 * line before it (so the unsigned header cannot be edited), the file reaches the head of the chain
 * the notary named when it sealed the export, and — with the head log — reaches that head too and
 * holds the very checkpoints the notary wrote (a history re-signed with a stolen key differs there).
 */
export function exportExtentFindings(i: ExportExtentInput): EvidenceFinding[] {
  const keys = pinKeys(i.notaryKeys);
  const out: EvidenceFinding[] = [];
  const { parsed } = i;
  const fileLast = parsed.checkpoints.at(-1);
  const fileEnd: CheckpointRef | null = fileLast === undefined ? null : checkpointRef(fileLast);
  const t = parsed.trailer;
  let ranged = false;
  let sealedHead: CheckpointRef | null = null;
  if (t === undefined) {
    out.push({ kind: "export_truncated", detail: "the file ends before its trailer: lines were cut from its end (or it was exported before exports were sealed)" });
  } else {
    const s = t.statement;
    const sig = checkExportTrailerSignature(t, keys);
    if (sig !== "valid") {
      out.push({ kind: "export_altered", detail: sig === "unknown_key" ? `the trailer is signed with key ${t.keyId}, which is not a pinned notary key` : "the trailer's signature does not verify" });
    } else {
      ranged = s.until !== undefined;
      sealedHead = s.head;
      if (s.digest !== parsed.body.digest || s.lines !== parsed.body.lines) {
        out.push({ kind: "export_altered", detail: `the ${parsed.body.lines} lines before the trailer are not the ${s.lines} the notary sealed (digest ${parsed.body.digest}, sealed ${s.digest}): the header or lines were edited, added or removed` });
      }
      if (s.last?.hash !== fileEnd?.hash) {
        out.push({ kind: "export_truncated", ...(fileEnd ? { checkpoint: fileEnd.index, seq: fileEnd.toSeq } : {}), detail: `the file's last checkpoint is ${refText(fileEnd)}, the trailer names ${refText(s.last)}` });
      }
    }
    if (parsed.afterTrailer > 0) out.push({ kind: "export_altered", detail: `${parsed.afterTrailer} line${parsed.afterTrailer === 1 ? " follows" : "s follow"} the trailer` });
  }

  const headLast = i.head === undefined ? undefined : headFindings(i.head, parsed.checkpoints, keys, out);
  // a range asked for (--until) ends where it was asked to; the whole history must reach the head
  if (!ranged) {
    const later = [sealedHead, headLast ?? null].filter((h): h is CheckpointRef => h !== null).sort((a, b) => b.index - a.index)[0];
    if (later !== undefined && (fileEnd === null || later.index > fileEnd.index)) {
      const from = later === headLast ? "the head log reaches" : "the notary's head was";
      out.push({ kind: "export_truncated", ...(fileEnd ? { checkpoint: fileEnd.index, seq: fileEnd.toSeq } : {}), detail: `the file ends at ${refText(fileEnd)}, but ${from} ${refText(later)}${later === headLast ? "" : " when it sealed the export"}` });
    }
  }
  return out;
}

/** Checks the head log itself and every checkpoint of the file it also records; returns its last trusted checkpoint. */
function headFindings(head: readonly Checkpoint[], fileCheckpoints: readonly Checkpoint[], keys: ReturnType<typeof pinKeys>, out: EvidenceFinding[]): CheckpointRef | undefined {
  const byIndex = new Map<number, Checkpoint>();
  for (const h of head) {
    const s = h.statement;
    if (checkCheckpointSignature(h, keys) !== "valid") {
      out.push({ kind: "head_invalid", checkpoint: s.index, detail: `the head log's checkpoint #${s.index} is not signed by a pinned notary key: the head log cannot vouch for it` });
      continue;
    }
    const seen = byIndex.get(s.index);
    if (seen !== undefined && checkpointHash(seen.statement) !== checkpointHash(s)) {
      out.push({ kind: "head_invalid", checkpoint: s.index, detail: `the head log holds two different checkpoints #${s.index}: the notary's key signed a second history` });
      continue;
    }
    byIndex.set(s.index, h);
  }
  for (const c of fileCheckpoints) {
    const s = c.statement;
    const h = byIndex.get(s.index);
    if (h === undefined || checkpointHash(h.statement) === checkpointHash(s)) continue;
    const what =
      h.statement.root !== s.root
        ? `its Merkle root ${s.root} differs from the head log's ${h.statement.root} for seq ${h.statement.fromSeq}–${h.statement.toSeq}`
        : "its signed statement differs from the head log's";
    out.push({ kind: "checkpoint_resealed", checkpoint: s.index, seq: s.fromSeq, detail: `checkpoint #${s.index} (seq ${s.fromSeq}–${s.toSeq}) is not the one the notary wrote: ${what} (history re-signed with the notary's key)` });
  }
  const last = [...byIndex.values()].sort((a, b) => b.statement.index - a.statement.index)[0];
  return last === undefined ? undefined : checkpointRef(last);
}

function refText(r: CheckpointRef | null): string {
  return r === null ? "no checkpoint" : `checkpoint #${r.index} (seq ${r.toSeq})`;
}
