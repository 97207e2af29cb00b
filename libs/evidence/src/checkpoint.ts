import { STREAM_CALLS } from "@warden/contracts/subjects";
import { approverKeyId, verifyEd25519 } from "@warden/contracts/approval";
import { canonicalJson, sha256Hex } from "@warden/contracts/json";
import { z } from "zod";
import { merkleRoot } from "./merkle.js";

/** Bytes of a leaf kept in a checkpoint's index: enough to find a change, the root proves the rest. */
export const LEAF_PREFIX_BYTES = 8;

const Sha256Schema = z.string().regex(/^sha256:[0-9a-f]{64}$/);
const SeqSchema = z.int().positive();

/**
 * What a notary signs for one range of the call stream. `leaves` holds the first bytes of every
 * sealed message's leaf in stream order (base64), so a verifier can tell which message changed,
 * went missing, moved or was added; `root` binds the full leaves. `prev` chains the checkpoints:
 * one removed or reordered breaks the chain.
 */
export const CheckpointStatementSchema = z.strictObject({
  v: z.literal(1),
  stream: z.string().min(1),
  index: z.int().nonnegative(),
  fromSeq: SeqSchema,
  toSeq: SeqSchema,
  /** Ranges of sequences (inclusive) the stream no longer held when this range was sealed. */
  missing: z.array(z.tuple([SeqSchema, SeqSchema])),
  count: z.int().positive(),
  root: Sha256Schema,
  leaves: z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/),
  prev: Sha256Schema.nullable(),
  sealedAt: z.iso.datetime(),
});
export type CheckpointStatement = z.infer<typeof CheckpointStatementSchema>;

/** A statement as the notary signs it, checkpoint or export trailer: the statement, its key and the signature. */
export function signedStatementSchema<S extends z.ZodType>(statement: S) {
  return z.strictObject({
    statement,
    /** Which pinned notary key signed (the first 16 hex of sha256 of its SPKI DER). */
    keyId: z.string().regex(/^[0-9a-f]{16}$/),
    /** Ed25519 over the canonical JSON of the statement, base64. */
    signature: z.string().min(1),
  });
}

export const CheckpointSchema = signedStatementSchema(CheckpointStatementSchema);
export type Checkpoint = z.infer<typeof CheckpointSchema>;

/** The bytes a notary signs. */
export function checkpointPayload(s: CheckpointStatement): Buffer {
  return Buffer.from(canonicalJson(s));
}

/** What the next checkpoint names as its `prev`. */
export function checkpointHash(s: CheckpointStatement): string {
  return `sha256:${sha256Hex(checkpointPayload(s))}`;
}

export interface SealInput {
  readonly index: number;
  readonly fromSeq: number;
  readonly toSeq: number;
  readonly missing: readonly (readonly [number, number])[];
  /** The leaves of the messages present in the range, in stream order. */
  readonly leaves: readonly Uint8Array[];
  readonly prev: string | null;
  readonly sealedAt: Date;
}

export function checkpointStatement(i: SealInput): CheckpointStatement {
  const prefixes = Buffer.concat(i.leaves.map((l) => Buffer.from(l).subarray(0, LEAF_PREFIX_BYTES)));
  return {
    v: 1,
    stream: STREAM_CALLS,
    index: i.index,
    fromSeq: i.fromSeq,
    toSeq: i.toSeq,
    missing: i.missing.map(([a, b]) => [a, b] as [number, number]),
    count: i.leaves.length,
    root: `sha256:${merkleRoot(i.leaves).toString("hex")}`,
    leaves: prefixes.toString("base64"),
    prev: i.prev,
    sealedAt: i.sealedAt.toISOString(),
  };
}

/** A signer: the notary's private key, or anything that signs bytes with Ed25519 (base64 out). */
export interface CheckpointSigner {
  readonly keyId: string;
  sign(payload: Uint8Array): string;
}

export function signCheckpoint(statement: CheckpointStatement, signer: CheckpointSigner): Checkpoint {
  return { statement, keyId: signer.keyId, signature: signer.sign(checkpointPayload(statement)) };
}

/** The leaf prefixes a statement lists, one hex string per sealed message. */
export function leafPrefixesOf(s: CheckpointStatement): string[] {
  const bytes = Buffer.from(s.leaves, "base64");
  const out: string[] = [];
  for (let i = 0; i + LEAF_PREFIX_BYTES <= bytes.length; i += LEAF_PREFIX_BYTES) out.push(bytes.subarray(i, i + LEAF_PREFIX_BYTES).toString("hex"));
  return out;
}

/** The sequences a statement sealed, in order: its range without the missing ones. */
export function sealedSeqsOf(s: CheckpointStatement): number[] {
  const out: number[] = [];
  const gaps = [...s.missing].sort((a, b) => a[0] - b[0]);
  let g = 0;
  for (let seq = s.fromSeq; seq <= s.toSeq; seq++) {
    while (g < gaps.length && gaps[g]![1] < seq) g++;
    const gap = gaps[g];
    if (gap !== undefined && gap[0] <= seq) {
      seq = gap[1];
      continue;
    }
    out.push(seq);
  }
  return out;
}

/** Public keys (SPKI DER, base64) by key id. */
export type PinnedKeys = ReadonlyMap<string, string>;

export function pinKeys(publicKeysDerBase64: readonly string[]): PinnedKeys {
  return new Map(publicKeysDerBase64.map((k) => [approverKeyId(Buffer.from(k, "base64")), k]));
}

export type CheckpointSignatureCheck = "valid" | "unknown_key" | "invalid";

export function checkCheckpointSignature(c: Checkpoint, notaryKeys: PinnedKeys): CheckpointSignatureCheck {
  const key = notaryKeys.get(c.keyId);
  if (key === undefined) return "unknown_key";
  return verifyEd25519(key, checkpointPayload(c.statement), c.signature) ? "valid" : "invalid";
}
