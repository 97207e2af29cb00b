import { encodeJson, isRevisionConflict, type KV } from "@warden/bus";

/** Writes `value` if the key is still at `revision` (absent: if it does not exist); the new revision, or undefined on a conflict. */
export async function compareAndSet(kv: KV, key: string, value: unknown, revision: number | undefined): Promise<number | undefined> {
  try {
    return revision === undefined ? await kv.create(key, encodeJson(value)) : await kv.update(key, encodeJson(value), revision);
  } catch (err) {
    if (isRevisionConflict(err)) return undefined;
    throw err;
  }
}
