import { serveRpc, type Bus, type Logger } from "@warden/bus";
import { NOTARY_EXPORT_SEAL_SUBJECT, STREAM_CALLS } from "@warden/contracts/subjects";
import { wardenError } from "@warden/contracts/errors";
import { validateJson } from "@warden/contracts/json";
import { checkpointRef, ExportSealRequestSchema, signExportTrailer, type CheckpointSigner } from "@warden/evidence";
import { lastCheckpoint } from "./last-checkpoint.js";

/**
 * Answers `warden audit export`'s seal requests: signs the file's digest together with the head of
 * the chain as WARDEN_NOTARY holds it now, which the exporter cannot choose. An export cut short
 * afterwards no longer matches the digest, and a fresh trailer for the shorter file names a later head.
 */
export function serveExportSeals(bus: Bus, log: Logger, key: CheckpointSigner): ReturnType<typeof serveRpc> {
  return serveRpc(bus, NOTARY_EXPORT_SEAL_SUBJECT, "notary", log, async (payload) => {
    const req = validateJson(ExportSealRequestSchema, payload);
    if (!req.ok) return { ok: false, error: wardenError("INVALID_REQUEST", req.reason) };
    const head = await lastCheckpoint(bus);
    const trailer = signExportTrailer(
      { ...req.value, kind: "warden-export-trailer", stream: STREAM_CALLS, head: head === undefined ? null : checkpointRef(head.checkpoint), signedAt: new Date().toISOString() },
      key,
    );
    log.info({ digest: req.value.digest, last: req.value.last?.index ?? null, head: head?.checkpoint.statement.index ?? null }, "export sealed");
    return { ok: true, value: trailer };
  });
}
