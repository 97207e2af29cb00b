import { canonicalJson, sha256Hex } from "@warden/contracts/json";

/** sha256 of a model's canonical JSON (sorted keys): equal models, equal digests. */
export function digestModel(model: unknown): string {
  return `sha256:${sha256Hex(canonicalJson(model))}`;
}

/** The digest of a whole read model: its keys in order, each with its model's digest. */
export function digestModels(entries: Iterable<readonly [string, unknown]>): string {
  const lines = [...entries].map(([key, model]) => `${key}\t${digestModel(model)}`);
  lines.sort();
  return `sha256:${sha256Hex(lines.join("\n"))}`;
}
