import { getStoredMessage, type Bus, type ObjectStore } from "@warden/bus";
import { type ArtifactRef } from "@warden/contracts/events";
import { OBJECT_STORE_ARTIFACTS } from "@warden/contracts/subjects";
import { fail, ok, type Outcome } from "@warden/contracts/errors";
import { type JsonValue } from "@warden/contracts/json";

export const ARTIFACT_CONTENT_TYPE = "application/json";

/** The object name of a call's full output. */
export function outputArtifactId(callId: string): string {
  return `${callId}.output.json`;
}

/** Writes outputs to `warden_artifacts`; the store handle is opened once. */
export class ArtifactWriter {
  private store: Promise<ObjectStore> | undefined;

  constructor(private readonly bus: Bus) {}

  async putOutput(callId: string, json: Uint8Array, sha256: string): Promise<ArtifactRef> {
    this.store ??= this.bus.objm.open(OBJECT_STORE_ARTIFACTS);
    const store = await this.store.catch((err: unknown) => {
      this.store = undefined;
      throw err;
    });
    const id = outputArtifactId(callId);
    await store.putBlob({ name: id, description: `output of call ${callId}` }, json);
    return { id, sha256, bytes: json.byteLength, contentType: ARTIFACT_CONTENT_TYPE };
  }
}

/**
 * Reads an artifact's bytes back (compare their sha256 with the event's ArtifactRef); undefined
 * when absent. Its chunks are read one stored message at a time, not through the object store's
 * `get`: that makes an ordered consumer per read which nats-server ≥ 2.10 keeps for its 5-minute
 * inactivity window, and a stream refuses consumers past 1,000 (measured on 2.15.1: the 1,001st
 * read within 5 minutes failed "maximum consumers limit reached").
 */
export async function readArtifact(bus: Bus, id: string): Promise<Uint8Array | undefined> {
  const store = await bus.objm.open(OBJECT_STORE_ARTIFACTS);
  const info = await store.info(id);
  if (info === null || info.deleted) return undefined;
  const stream = `OBJ_${OBJECT_STORE_ARTIFACTS}`;
  const subject = `$O.${OBJECT_STORE_ARTIFACTS}.C.${info.nuid}`;
  const bytes = new Uint8Array(info.size);
  let at = 0;
  let seq = 0;
  for (let i = 0; i < info.chunks; i++) {
    const m = await getStoredMessage(bus, stream, { seq: seq + 1, next_by_subj: subject });
    if (m === null) throw new Error(`artifact ${id}: chunk ${i + 1} of ${info.chunks} is missing`);
    if (at + m.data.byteLength > bytes.byteLength) throw new Error(`artifact ${id}: its chunks hold more than its ${info.size} bytes`);
    bytes.set(m.data, at);
    at += m.data.byteLength;
    seq = m.seq;
  }
  if (at !== info.size) throw new Error(`artifact ${id}: its chunks hold ${at} of its ${info.size} bytes`);
  return bytes;
}

/** Reads a JSON artifact (a call's full output) and parses it; NOT_FOUND or OUTPUT_INVALID otherwise. */
export async function readArtifactJson(bus: Bus, id: string): Promise<Outcome<JsonValue>> {
  const bytes = await readArtifact(bus, id);
  if (bytes === undefined) return fail("NOT_FOUND", `no artifact ${JSON.stringify(id)} in ${OBJECT_STORE_ARTIFACTS}`);
  try {
    return ok(JSON.parse(Buffer.from(bytes).toString("utf8")) as JsonValue);
  } catch (err) {
    return fail("OUTPUT_INVALID", `artifact ${id} is not JSON: ${(err as Error).message}`);
  }
}
