import type { Bus } from "@warden/bus";
import { STREAM_CALLS } from "@warden/contracts/subjects";
import { PinnedKeysFileSchema, type Checkpoint, type PinnedKeysFile, type StoredMessage } from "@warden/evidence";
import { lastCheckpoint, readCheckpoints } from "@warden/notary";
import { readStream } from "@warden/projector";
import { existingHome } from "./connect.js";
import { usageError } from "./errors.js";
import { readNamedText } from "./named-file.js";
import type { CommandIo } from "./io.js";

export const NOTARY_WAIT_MS = 10_000;

export interface NotaryPosition {
  /** The stream's last sequence when the read began. */
  readonly target: number;
  /** The last sequence a checkpoint sealed. */
  readonly sealedThrough: number;
  readonly caughtUp: boolean;
}

export interface StreamEvidence {
  readonly messages: StoredMessage[];
  /** When each message was stored (ms), by sequence. */
  readonly storedAtMs: ReadonlyMap<number, number>;
  readonly checkpoints: Checkpoint[];
  /** Messages on the checkpoint subject that are not checkpoints. */
  readonly invalidCheckpoints: { readonly seq: number; readonly reason: string }[];
  readonly firstSeq: number;
  readonly notary: NotaryPosition;
}

/**
 * The whole call stream and the notary's checkpoints, for an evidence check or an export. Waits
 * (up to `notaryWaitMs`) for the notary to seal the stream's end as it was when the read began,
 * then reads messages as far as the checkpoints reach, so nothing sealed is missed.
 */
export async function readStreamEvidence(bus: Bus, o: { notaryWaitMs: number }): Promise<StreamEvidence> {
  const info = await bus.jsm.streams.info(STREAM_CALLS);
  const target = info.state.last_seq;
  const deadline = Date.now() + o.notaryWaitMs;
  let sealedThrough = (await lastCheckpoint(bus))?.checkpoint.statement.toSeq ?? 0;
  while (sealedThrough < target && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    sealedThrough = (await lastCheckpoint(bus))?.checkpoint.statement.toSeq ?? 0;
  }
  const { checkpoints, invalid } = await readCheckpoints(bus);
  const sealedEnd = checkpoints.at(-1)?.checkpoint.statement.toSeq ?? 0;
  const messages: StoredMessage[] = [];
  const storedAtMs = new Map<number, number>();
  await readStream(bus, { toSeq: Math.max(target, sealedEnd) }, (r) => {
    messages.push({ seq: r.seq, subject: r.subject, data: r.data });
    storedAtMs.set(r.seq, r.storedAtMs);
  });
  return {
    messages,
    storedAtMs,
    checkpoints: checkpoints.map((c) => c.checkpoint),
    invalidCheckpoints: invalid,
    firstSeq: info.state.first_seq,
    notary: { target, sealedThrough: sealedEnd, caughtUp: sealedEnd >= target },
  };
}

/** The keys to verify with: a `warden audit keys` file, or those pinned in WARDEN_HOME/env.json. */
export async function loadPinnedKeys(io: Pick<CommandIo, "env" | "cwd">, file: string | undefined): Promise<PinnedKeysFile> {
  if (file !== undefined) {
    const text = await readNamedText(file);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      throw usageError(`--keys ${file} is not JSON: ${(err as Error).message}`);
    }
    const parsed = PinnedKeysFileSchema.safeParse(json);
    if (!parsed.success) throw usageError(`--keys ${file} is not a keys file (write one with \`warden audit keys --out FILE\`): ${parsed.error.issues[0]?.message ?? "invalid"}`);
    return parsed.data;
  }
  const home = existingHome(io);
  if (home === undefined) throw usageError("no keys to verify with: pass --keys FILE (from `warden audit keys`) or set WARDEN_HOME to the home that provisioned the notary");
  const env = home.env();
  return { v: 1, notaryPublicKeys: env.notaryPublicKeys, approverPublicKeys: env.approverPublicKeys };
}
