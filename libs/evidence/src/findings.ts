export const EVIDENCE_FINDING_KINDS = [
  "checkpoint_key_unknown",
  "checkpoint_signature_invalid",
  "checkpoint_malformed",
  "checkpoint_chain_broken",
  "checkpoint_root_mismatch",
  "event_removed",
  "event_altered",
  "event_inserted",
  "event_reordered",
  "event_unsealed",
  "event_unreadable",
  "chain_unlinked",
  "chain_cause_missing",
  "chain_hash_mismatch",
  "writer_not_allowed",
  "grant_key_unknown",
  "grant_signature_invalid",
  // an export checked offline (export-extent.ts): cut short, edited, or re-sealed against the head log
  "export_truncated",
  "export_altered",
  "checkpoint_resealed",
  "head_invalid",
] as const;
export type EvidenceFindingKind = (typeof EVIDENCE_FINDING_KINDS)[number];

/** One thing the evidence does not support, located by stream sequence and call where known. */
export interface EvidenceFinding {
  readonly kind: EvidenceFindingKind;
  readonly detail: string;
  readonly seq?: number;
  readonly callId?: string;
  readonly type?: string;
  readonly eventId?: string;
  /** The checkpoint (its index) the finding is about or was sealed in. */
  readonly checkpoint?: number;
}
