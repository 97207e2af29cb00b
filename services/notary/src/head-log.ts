import { open, readFile, type FileHandle } from "node:fs/promises";
import { checkpointLine, parseHeadLog, type Checkpoint } from "@warden/evidence";

/**
 * The head log: every checkpoint this notary wrote, one JSON line each (the line an export carries),
 * in a file of its own folder outside the bus, so an admin who rewrites WARDEN_NOTARY and re-signs
 * it with a stolen key still disagrees with this copy (`warden audit --verify --head`). Opened
 * O_APPEND and fsynced per line; ship or copy it where the admin cannot write.
 */
/** Its name in the notary's key folder. */
export const HEAD_LOG_FILE = "heads.jsonl";

export interface HeadLog {
  /** The last checkpoint in the file (written by this notary or an earlier run), if any. */
  last(): Checkpoint | undefined;
  append(c: Checkpoint): Promise<void>;
  close(): Promise<void>;
}

export async function openHeadLog(path: string): Promise<HeadLog> {
  const file: FileHandle = await open(path, "a", 0o600);
  let last = parseHeadLog(await readFile(path, "utf8")).checkpoints.at(-1);
  let pending = Promise.resolve();
  return {
    last: () => last,
    append(c) {
      // one write per line and in order, so concurrent appends never interleave
      pending = pending.then(async () => {
        await file.write(`${checkpointLine(c)}\n`);
        await file.sync();
        last = c;
      });
      return pending;
    },
    async close() {
      await pending.catch(() => undefined);
      await file.close();
    },
  };
}
