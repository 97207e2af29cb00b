import { sign } from "node:crypto";
import { describe, expect, it } from "vitest";
import { STREAM_CALLS, subjectOfEvent } from "@warden/contracts/subjects";
import { approverKey, SYNTHETIC_APPROVER_KEY, syntheticCall } from "@warden/testing";
import { type Checkpoint, type CheckpointSigner } from "./checkpoint.js";
import { exportExtentFindings } from "./export-extent.js";
import { checkpointLine, exportHeaderLine, messageLine, parseExport } from "./export-file.js";
import { checkpointRef, exportDigest, signExportTrailer, trailerLine } from "./export-trailer.js";
import { sealMessages } from "./seal-messages.js";
import { verifyEvidence, type StoredMessage } from "./verify-evidence.js";

const signerOf = (k: ReturnType<typeof approverKey>): CheckpointSigner => ({ keyId: k.keyId, sign: (p) => sign(null, p, k.privateKey).toString("base64") });
const notary = approverKey();
const signer = signerOf(notary);
const notaryKeys = [notary.publicKeyDerBase64];

const events = Array.from({ length: 4 }, (_, i) => syntheticCall({ callId: `x${i}`, outcome: "succeeded" })).flat();
const messages: StoredMessage[] = events.map((e, i) => ({ seq: i + 1, subject: subjectOfEvent(e), data: Buffer.from(JSON.stringify(e)) }));

/** Checkpoints of 5 messages each, chained from #0 as the notary writes them, signed by `by`. */
const seal = (ms: readonly StoredMessage[], by: CheckpointSigner): Checkpoint[] => sealMessages(ms, 5, by, new Date("2030-01-01T00:00:00Z"));

/** An export as `warden audit export` writes it: header, checkpoints, messages, the notary's trailer (head = the last checkpoint unless told). */
function exportText(checkpoints: readonly Checkpoint[], ms: readonly StoredMessage[], o: { head?: Checkpoint; until?: string } = {}): string {
  const lines = [
    exportHeaderLine({ kind: "warden-audit-export", v: 1, stream: STREAM_CALLS, exportedAt: "2030-01-01T00:00:01.000Z", complete: true, firstSeq: 1, checkpoints: checkpoints.length, messages: ms.length }),
    ...checkpoints.map(checkpointLine),
    ...ms.map(messageLine),
  ];
  const body = `${lines.join("\n")}\n`;
  const head = o.head ?? checkpoints.at(-1);
  const trailer = signExportTrailer(
    {
      kind: "warden-export-trailer",
      v: 1,
      stream: STREAM_CALLS,
      digest: exportDigest(body),
      lines: lines.length,
      first: checkpoints[0] ? checkpointRef(checkpoints[0]) : null,
      last: checkpoints.at(-1) ? checkpointRef(checkpoints.at(-1)!) : null,
      head: head ? checkpointRef(head) : null,
      ...(o.until === undefined ? {} : { until: o.until }),
      signedAt: "2030-01-01T00:00:02.000Z",
    },
    signer,
  );
  return `${body}${trailerLine(trailer)}\n`;
}

const checkpoints = seal(messages, signer);
const whole = exportText(checkpoints, messages);
const extent = (text: string, head?: readonly Checkpoint[]) => exportExtentFindings({ parsed: parseExport(text), notaryKeys, ...(head ? { head } : {}) });
/** What the checks before trailers ran: the evidence alone. */
const evidenceOnly = (text: string) => {
  const p = parseExport(text);
  return verifyEvidence({ messages: p.messages, checkpoints: p.checkpoints, notaryKeys, approverKeys: [SYNTHETIC_APPROVER_KEY.publicKeyDerBase64], complete: p.header?.complete ?? false }).findings;
};

/** The attack of issue 25: keep the first half of the checkpoints and the messages they seal, fix the header's counts. */
function cutInHalf(text: string, keepTrailer: boolean): string {
  const lines = text.trimEnd().split("\n");
  const header = JSON.parse(lines[0]!) as Record<string, unknown>;
  const kept = checkpoints.slice(0, 2);
  const keptTo = kept.at(-1)!.statement.toSeq;
  const body = lines.slice(1).filter((l) => {
    const j = JSON.parse(l) as { kind: string; seq?: number; checkpoint?: Checkpoint; trailer?: unknown };
    if (j.kind === "trailer") return keepTrailer;
    if (j.kind === "checkpoint") return j.checkpoint!.statement.index < kept.length;
    return j.seq! <= keptTo;
  });
  return `${[JSON.stringify({ ...header, checkpoints: kept.length, messages: keptTo }), ...body].join("\n")}\n`;
}

describe("an export's extent: its trailer, and the head log", () => {
  it("finds nothing in a whole export, with or without the head log", () => {
    expect(evidenceOnly(whole)).toEqual([]);
    expect(extent(whole)).toEqual([]);
    expect(extent(whole, checkpoints)).toEqual([]);
  });

  it("reports export_truncated when the file was cut in half and its header edited, where the evidence alone finds nothing", () => {
    const cut = cutInHalf(whole, false);
    // the control: what verification found before trailers
    expect(evidenceOnly(cut)).toEqual([]);
    expect(extent(cut).map((f) => f.kind)).toEqual(["export_truncated"]);
  });

  it("reports export_altered when the cut file keeps the old trailer", () => {
    const cut = cutInHalf(whole, true);
    expect(evidenceOnly(cut)).toEqual([]);
    const kinds = extent(cut).map((f) => f.kind);
    expect(kinds).toContain("export_altered");
    expect(kinds).toContain("export_truncated");
  });

  it("reports export_altered when only the header is edited", () => {
    const lines = whole.split("\n");
    const header = JSON.parse(lines[0]!) as Record<string, unknown>;
    const edited = [JSON.stringify({ ...header, exportedAt: "2031-01-01T00:00:00.000Z" }), ...lines.slice(1)].join("\n");
    expect(extent(edited).map((f) => f.kind)).toEqual(["export_altered"]);
  });

  it("reports export_altered for a trailer signed by a key that is not pinned", () => {
    const other = signerOf(approverKey());
    const lines = whole.trimEnd().split("\n");
    const t = JSON.parse(lines.at(-1)!) as { trailer: Parameters<typeof trailerLine>[0] };
    const forged = trailerLine(signExportTrailer(t.trailer.statement, other));
    expect(extent(`${[...lines.slice(0, -1), forged].join("\n")}\n`).map((f) => f.kind)).toEqual(["export_altered"]);
  });

  it("reports export_truncated for a file that ends before the head the notary named when it sealed it", () => {
    const early = exportText(checkpoints.slice(0, 2), messages.slice(0, 10), { head: checkpoints.at(-1)! });
    expect(extent(early)).toEqual([expect.objectContaining({ kind: "export_truncated", checkpoint: 1 })]);
    // a range asked for ends where it was asked to
    expect(extent(exportText(checkpoints.slice(0, 2), messages.slice(0, 10), { head: checkpoints.at(-1)!, until: "2030-01-01T00:00:00.500Z" }))).toEqual([]);
  });

  it("reports export_truncated for a whole, well-sealed earlier export verified against a later head log", () => {
    const earlier = exportText(checkpoints.slice(0, 2), messages.slice(0, 10));
    expect(extent(earlier)).toEqual([]);
    expect(extent(earlier, checkpoints)).toEqual([expect.objectContaining({ kind: "export_truncated", checkpoint: 1 })]);
    expect(extent(earlier, checkpoints)[0]!.detail).toMatch(/the head log reaches checkpoint #3/);
  });

  it("reports checkpoint_resealed for a result rewritten and every checkpoint re-signed with the notary's key, which nothing else finds", () => {
    const rewritten = messages.map((m) => {
      const e = JSON.parse(Buffer.from(m.data).toString("utf8")) as { type: string; callId: string; data: Record<string, unknown> };
      return e.type === "ToolCallFinished" && e.callId === "x2" ? { ...m, data: Buffer.from(JSON.stringify({ ...e, data: { ...e.data, output: { forged: true } } })) } : m;
    });
    // whoever holds notary.pem seals the rewritten history and exports it with a fresh trailer
    const resealed = exportText(seal(rewritten, signer), rewritten);
    expect(evidenceOnly(resealed).filter((f) => f.kind.startsWith("checkpoint_") || f.kind.startsWith("event_"))).toEqual([]);
    expect(extent(resealed)).toEqual([]);
    const found = extent(resealed, checkpoints);
    expect(found.map((f) => f.kind)).toEqual(["checkpoint_resealed", "checkpoint_resealed"]);
    expect(found[0]).toMatchObject({ checkpoint: 2, seq: 11 });
    expect(found[0]!.detail).toMatch(/Merkle root/);
  });

  it("reports head_invalid for a head log line no pinned key signed, and does not trust it", () => {
    const forgedHead = seal(messages, signerOf(approverKey()));
    const found = extent(whole, [...checkpoints.slice(0, 2), ...forgedHead.slice(2)]);
    expect(found.map((f) => f.kind)).toEqual(["head_invalid", "head_invalid"]);
  });
});
