export { eventLeaf, merkleRoot } from "./merkle.js";
export {
  CheckpointSchema,
  CheckpointStatementSchema,
  checkCheckpointSignature,
  checkpointHash,
  checkpointPayload,
  checkpointStatement,
  leafPrefixesOf,
  LEAF_PREFIX_BYTES,
  pinKeys,
  sealedSeqsOf,
  signCheckpoint,
  type Checkpoint,
  type CheckpointSigner,
  type CheckpointStatement,
  type PinnedKeys,
  type SealInput,
} from "./checkpoint.js";
export { EVIDENCE_FINDING_KINDS, type EvidenceFinding, type EvidenceFindingKind } from "./findings.js";
export { sealMessages } from "./seal-messages.js";
export { verifyEvidence, type EvidenceInput, type EvidenceReport, type StoredMessage } from "./verify-evidence.js";
export { whoMayWrite, writersOf, type WriterRole } from "./writer-roles.js";
export {
  checkpointLine,
  ExportHeaderSchema,
  exportHeaderLine,
  messageLine,
  parseExport,
  parseHeadLog,
  PinnedKeysFileSchema,
  type ExportHeader,
  type ParsedExport,
  type PinnedKeysFile,
} from "./export-file.js";
export {
  checkExportTrailerSignature,
  checkpointRef,
  CheckpointRefSchema,
  exportDigest,
  ExportSealReplySchema,
  ExportSealRequestSchema,
  ExportTrailerSchema,
  ExportTrailerStatementSchema,
  signExportTrailer,
  trailerLine,
  type CheckpointRef,
  type ExportSealReply,
  type ExportSealRequest,
  type ExportTrailer,
  type ExportTrailerStatement,
} from "./export-trailer.js";
export { exportExtentFindings, type ExportExtentInput } from "./export-extent.js";
