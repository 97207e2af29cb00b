import type { KV } from "@warden/bus";
import { parseStoredJson } from "./stored-model.js";

/**
 * Every current value of a bucket whose key `owns` accepts, as parsed JSON (undefined when a
 * value is not JSON within the model limits, so it still shows in a digest). Reads with one watch, not a get per key.
 */
export async function readBucket(kv: KV, owns: (key: string) => boolean): Promise<Map<string, unknown>> {
  const out = new Map<string, unknown>();
  if ((await kv.status()).values === 0) return out;
  const iter = await kv.watch();
  for await (const e of iter) {
    if (owns(e.key)) {
      if (e.operation === "PUT") {
        const d = parseStoredJson(e.value);
        out.set(e.key, d.ok ? d.value : undefined);
      } else out.delete(e.key);
    }
    // the watch replays current values first; the last of them has nothing pending after it
    if (e.delta === 0 || e.isUpdate) break;
  }
  iter.stop();
  return out;
}
