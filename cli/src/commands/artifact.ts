import { resolve } from "node:path";
import { OBJECT_STORE_ARTIFACTS } from "@warden/contracts/subjects";
import { onePositional } from "../args.js";
import { callIdOfArtifact, readRecordedArtifact } from "../artifact-reader.js";
import type { ARTIFACT_GET_OPTIONS } from "../command-list.js";
import { withBus } from "../connect.js";
import { parseToken } from "../domain/options.js";
import { CliError, EXIT_OK, usageError } from "../errors.js";
import { writeNamedFile } from "../named-file.js";
import type { Command } from "../io.js";
import { emit } from "../output.js";

/**
 * `warden artifact get ARTIFACT_ID [--out FILE] [--call CALL_ID]`: a call's stored output, read
 * from `warden_artifacts` and checked against the sha256 and size its result event recorded.
 * Bytes that do not match are refused: nothing is printed or written. Without --out the artifact
 * is printed when it is UTF-8 text (a JSON output is); anything else needs --out.
 */
export const artifactGetCommand: Command<typeof ARTIFACT_GET_OPTIONS> = async ({ values, positionals }, io) => {
  const id = onePositional(positionals, "ARTIFACT_ID");
  const callId = values.call === undefined ? callIdOfArtifact(id) : parseToken("--call", values.call);
  if (callId === undefined) throw usageError(`${JSON.stringify(id)} names no call (artifact ids are <callId>.output.json): give the call with --call CALL_ID`);
  const read = await withBus(io, { name: values.as, creds: values.creds, fallback: "admin" }, (bus) => readRecordedArtifact(bus, id, callId));

  switch (read.kind) {
    case "unrecorded":
      throw new CliError(
        "NOT_FOUND",
        read.callFound
          ? `no result of call ${callId} records an artifact ${JSON.stringify(id)}: there is nothing to check it against (\`warden trace ${callId}\` lists its artifacts)`
          : `no events for call ${callId}: an artifact is fetched only with the event that records its sha256 (give the call with --call CALL_ID)`,
      );
    case "missing":
      throw new CliError("NOT_FOUND", `${read.recorded.type} ${read.recorded.eventId} of call ${callId} records artifact ${id}, but ${OBJECT_STORE_ARTIFACTS} has no object by that name`);
    case "mismatch":
      throw new CliError(
        "OUTPUT_INVALID",
        `artifact ${id} in ${OBJECT_STORE_ARTIFACTS} is not what call ${callId} recorded: its sha256 is ${read.sha256} (${read.bytes} bytes), ${read.recorded.type} ${read.recorded.eventId} recorded ${read.recorded.ref.sha256} (${read.recorded.ref.bytes} bytes). The store was changed after the call; refusing to print or write it`,
      );
    case "ok":
      break;
  }
  const { recorded, bytes } = read;
  const summary = {
    ok: true,
    id,
    callId,
    recordedBy: { type: recorded.type, eventId: recorded.eventId },
    sha256: recorded.ref.sha256,
    bytes: recorded.ref.bytes,
    contentType: recorded.ref.contentType,
    verified: true,
  };
  if (values.out !== undefined) {
    const out = resolve(io.cwd, values.out);
    // a tool's output may be anyone's data: only the auditor's own user reads the copy
    await writeNamedFile(out, bytes, 0o600);
    emit(io, values.json ?? false, { ...summary, file: out }, () =>
      [`wrote ${bytes.byteLength} bytes of ${id} to ${out}`, `sha256 ${recorded.ref.sha256}`, `as ${recorded.type} ${recorded.eventId} of call ${callId} recorded`].join("\n"),
    );
    return EXIT_OK;
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw usageError(`artifact ${id} (${recorded.ref.contentType}, ${bytes.byteLength} bytes) is not UTF-8 text: write it to a file with --out FILE`);
  }
  emit(io, values.json ?? false, { ...summary, text }, () => text);
  return EXIT_OK;
};
