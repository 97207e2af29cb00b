import { verifyEd25519 } from "@warden/contracts/approval";
import { canonicalJson, sha256Hex } from "@warden/contracts/json";
import { z } from "zod";
import { checkpointHash, signedStatementSchema, type Checkpoint, type CheckpointSigner, type PinnedKeys } from "./checkpoint.js";

const Sha256Schema = z.string().regex(/^sha256:[0-9a-f]{64}$/);

/** A checkpoint named by what a verifier can compare: its place in the chain and its hash. */
export const CheckpointRefSchema = z.strictObject({
  index: z.int().nonnegative(),
  toSeq: z.int().positive(),
  hash: Sha256Schema,
});
export type CheckpointRef = z.infer<typeof CheckpointRefSchema>;

export function checkpointRef(c: Checkpoint): CheckpointRef {
  return { index: c.statement.index, toSeq: c.statement.toSeq, hash: checkpointHash(c.statement) };
}

/**
 * What an exporter asks the notary to seal: the digest of every line it wrote before the trailer,
 * the checkpoints the file holds, and the time range it was asked for. The notary cannot check the
 * digest (it never sees the file); what it adds is the one thing the exporter cannot choose: the
 * head of the chain when it signed.
 */
export const ExportSealRequestSchema = z.strictObject({
  v: z.literal(1),
  digest: Sha256Schema,
  lines: z.int().nonnegative(),
  first: CheckpointRefSchema.nullable(),
  last: CheckpointRefSchema.nullable(),
  since: z.iso.datetime().optional(),
  until: z.iso.datetime().optional(),
});
export type ExportSealRequest = z.infer<typeof ExportSealRequestSchema>;

/** What the notary signs: the request, the chain's head when it answered, and when. */
export const ExportTrailerStatementSchema = ExportSealRequestSchema.extend({
  // keeps a trailer's signature from ever passing for a checkpoint's (a strict statement of another shape)
  kind: z.literal("warden-export-trailer"),
  stream: z.string().min(1),
  head: CheckpointRefSchema.nullable(),
  signedAt: z.iso.datetime(),
});
export type ExportTrailerStatement = z.infer<typeof ExportTrailerStatementSchema>;

export const ExportTrailerSchema = signedStatementSchema(ExportTrailerStatementSchema);
export type ExportTrailer = z.infer<typeof ExportTrailerSchema>;

/** The notary's answer to a seal request. */
export const ExportSealReplySchema = z.discriminatedUnion("ok", [
  z.strictObject({ ok: z.literal(true), value: ExportTrailerSchema }),
  z.strictObject({ ok: z.literal(false), error: z.object({ code: z.string(), message: z.string(), retryable: z.boolean() }) }),
]);
export type ExportSealReply = z.infer<typeof ExportSealReplySchema>;

/** The digest a trailer names: sha256 of the file's exact text before the trailer line. */
export function exportDigest(body: string): string {
  return `sha256:${sha256Hex(Buffer.from(body, "utf8"))}`;
}

export function signExportTrailer(statement: ExportTrailerStatement, signer: CheckpointSigner): ExportTrailer {
  return { statement, keyId: signer.keyId, signature: signer.sign(Buffer.from(canonicalJson(statement))) };
}

export function checkExportTrailerSignature(t: ExportTrailer, notaryKeys: PinnedKeys): "valid" | "unknown_key" | "invalid" {
  const key = notaryKeys.get(t.keyId);
  if (key === undefined) return "unknown_key";
  return verifyEd25519(key, Buffer.from(canonicalJson(t.statement)), t.signature) ? "valid" : "invalid";
}

export function trailerLine(t: ExportTrailer): string {
  return JSON.stringify({ kind: "trailer", trailer: t });
}
