import { z } from "zod";
import { CheckpointSchema, type Checkpoint } from "./checkpoint.js";
import { exportDigest, ExportTrailerSchema, type ExportTrailer } from "./export-trailer.js";
import type { StoredMessage } from "./verify-evidence.js";

/**
 * `warden audit export`: one JSON object per line, a header first, then the checkpoints, then
 * the messages they seal, then the notary's signed trailer over all of it (export-trailer.ts). A message keeps its exact bytes: as text when they are UTF-8 (events
 * are JSON), base64 otherwise, so a verifier hashes what the stream held.
 */
export const ExportHeaderSchema = z.strictObject({
  kind: z.literal("warden-audit-export"),
  v: z.literal(1),
  stream: z.string(),
  exportedAt: z.iso.datetime(),
  /** The whole stream from its first checkpoint (not a time range of it). */
  complete: z.boolean(),
  /** The stream's first sequence when exported (earlier ones had been aged out). */
  firstSeq: z.int().nonnegative(),
  checkpoints: z.int().nonnegative(),
  messages: z.int().nonnegative(),
});
export type ExportHeader = z.infer<typeof ExportHeaderSchema>;

const CheckpointLineSchema = z.strictObject({ kind: z.literal("checkpoint"), checkpoint: CheckpointSchema });
const MessageLineSchema = z.strictObject({
  kind: z.literal("message"),
  seq: z.int().positive(),
  subject: z.string().min(1),
  data: z.string().optional(),
  dataBase64: z.string().optional(),
});
const TrailerLineSchema = z.strictObject({ kind: z.literal("trailer"), trailer: ExportTrailerSchema });
const LineSchema = z.discriminatedUnion("kind", [ExportHeaderSchema, CheckpointLineSchema, MessageLineSchema, TrailerLineSchema]);

const utf8 = new TextDecoder("utf-8", { fatal: true });

export function exportHeaderLine(h: ExportHeader): string {
  return JSON.stringify(h);
}

export function checkpointLine(c: Checkpoint): string {
  return JSON.stringify({ kind: "checkpoint", checkpoint: c });
}

export function messageLine(m: StoredMessage): string {
  let text: string | undefined;
  try {
    text = utf8.decode(m.data);
  } catch {
    text = undefined;
  }
  return JSON.stringify(text === undefined ? { kind: "message", seq: m.seq, subject: m.subject, dataBase64: Buffer.from(m.data).toString("base64") } : { kind: "message", seq: m.seq, subject: m.subject, data: text });
}

export interface ParsedExport {
  readonly header: ExportHeader | undefined;
  readonly checkpoints: Checkpoint[];
  readonly messages: StoredMessage[];
  /** Lines that are not part of an export, by line number (1-based). */
  readonly invalidLines: { readonly line: number; readonly reason: string }[];
  /** The notary's trailer, when the file has one as its last line. */
  readonly trailer: ExportTrailer | undefined;
  /** What the trailer must name: the digest and count of the lines before it (of the whole file when there is none). */
  readonly body: { readonly digest: string; readonly lines: number };
  /** Lines after the trailer (an export ends with it). */
  readonly afterTrailer: number;
}

/** Reads an export; a line it cannot read is reported, never dropped in silence. */
export function parseExport(text: string): ParsedExport {
  let header: ExportHeader | undefined;
  const checkpoints: Checkpoint[] = [];
  const messages: StoredMessage[] = [];
  const invalidLines: { line: number; reason: string }[] = [];
  let trailer: ExportTrailer | undefined;
  let trailerAt: { offset: number; line: number } | undefined;
  let afterTrailer = 0;
  let offset = 0;
  text.split("\n").forEach((raw, i) => {
    const at = offset;
    offset += raw.length + 1;
    if (raw.trim() === "") return;
    if (trailerAt !== undefined) afterTrailer++;
    const parsed = parseLine(raw, LineSchema, "not an export line");
    if (!parsed.ok) {
      invalidLines.push({ line: i + 1, reason: parsed.reason });
      return;
    }
    const l = parsed.value;
    if (l.kind === "warden-audit-export") {
      if (header !== undefined || i !== 0) invalidLines.push({ line: i + 1, reason: "a second header, or a header that is not the first line" });
      else header = l;
    } else if (l.kind === "trailer") {
      if (trailer !== undefined) invalidLines.push({ line: i + 1, reason: "a second trailer" });
      else {
        trailer = l.trailer;
        trailerAt = { offset: at, line: i };
      }
    } else if (l.kind === "checkpoint") {
      checkpoints.push(l.checkpoint);
    } else if ((l.data === undefined) === (l.dataBase64 === undefined)) {
      invalidLines.push({ line: i + 1, reason: "a message needs exactly one of data and dataBase64" });
    } else {
      const data = l.data !== undefined ? new TextEncoder().encode(l.data) : Buffer.from(l.dataBase64!, "base64");
      messages.push({ seq: l.seq, subject: l.subject, data });
    }
  });
  if (header === undefined) invalidLines.unshift({ line: 1, reason: "no export header on the first line" });
  const bodyText = trailerAt === undefined ? text : text.slice(0, trailerAt.offset);
  return {
    header,
    checkpoints,
    messages: messages.sort((a, b) => a.seq - b.seq),
    invalidLines,
    trailer,
    body: { digest: exportDigest(bodyText), lines: trailerAt?.line ?? bodyText.split("\n").filter((l) => l !== "").length },
    afterTrailer,
  };
}

/**
 * The notary's head log (`heads.jsonl` in its key folder): one checkpoint line per checkpoint it
 * wrote, as an export carries them. Several notary copies' logs may be concatenated: order does not matter.
 */
export function parseHeadLog(text: string): { checkpoints: Checkpoint[]; invalidLines: { line: number; reason: string }[] } {
  const checkpoints: Checkpoint[] = [];
  const invalidLines: { line: number; reason: string }[] = [];
  text.split("\n").forEach((raw, i) => {
    if (raw.trim() === "") return;
    const parsed = parseLine(raw, CheckpointLineSchema, "not a checkpoint line");
    if (parsed.ok) checkpoints.push(parsed.value.checkpoint);
    else invalidLines.push({ line: i + 1, reason: parsed.reason });
  });
  return { checkpoints, invalidLines };
}

/** The public keys an auditor pins: `warden audit keys` writes this file from WARDEN_HOME. */
export const PinnedKeysFileSchema = z.strictObject({
  v: z.literal(1),
  notaryPublicKeys: z.array(z.string().min(1)),
  approverPublicKeys: z.array(z.string().min(1)),
});
export type PinnedKeysFile = z.infer<typeof PinnedKeysFileSchema>;

/** One line of an export or head log, as its schema reads it, or why it is not one. */
function parseLine<T>(raw: string, schema: z.ZodType<T>, what: string): { ok: true; value: T } | { ok: false; reason: string } {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (err) {
    return { ok: false, reason: `not JSON: ${(err as Error).message}` };
  }
  const parsed = schema.safeParse(json);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, reason: parsed.error.issues[0]?.message ?? what };
}
