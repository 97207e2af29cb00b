import { READ_MODEL_NAMES } from "@warden/projections";
import { PROJECTOR_WAIT_MS, projectorBehindText, rebuildReadModels, type RebuildResult } from "@warden/projector";
import type { REPLAY_OPTIONS } from "../command-list.js";
import { withBus } from "../connect.js";
import { parseDuration, parseToken } from "../domain/options.js";
import { CliError, EXIT_FAILED, EXIT_OK, usageError } from "../errors.js";
import type { Command } from "../io.js";
import { emit, renderTable } from "../output.js";

/**
 * `warden replay [--rebuild [--suffix S]] [--to-seq N] [--projector-wait 5s]`: folds the stream
 * from sequence 1 to its end into every read model, prints each model's digest next to the live
 * one at the same sequence, and with --rebuild writes the models into fresh buckets
 * `<bucket>_<suffix>`. Exit 1 on a mismatch, or when the projector does not reach the stream's
 * end within the wait (stuck, lagging or not running).
 */
export const replayCommand: Command<typeof REPLAY_OPTIONS> = async ({ values }, io) => {
  const suffix = parseToken("--suffix", values.suffix ?? "rebuild");
  const toSeq = values["to-seq"] === undefined ? undefined : Number(values["to-seq"]);
  if (toSeq !== undefined && !(Number.isInteger(toSeq) && toSeq > 0)) throw usageError("--to-seq must be a positive stream sequence");
  const projectorWaitMs = parseDuration("--projector-wait", values["projector-wait"], PROJECTOR_WAIT_MS);
  const r = await withBus(io, { name: values.as, creds: values.creds, fallback: "admin" }, (bus) =>
    rebuildReadModels(bus, {
      write: values.rebuild ?? false,
      suffix,
      ...(toSeq === undefined ? {} : { toSeq }),
      projectorWaitMs,
      // on stderr, so stdout stays one document
      onProgress: (p) => io.err(`replay: ${p.read} events, seq ${p.seq}/${p.toSeq} (${Math.round((p.seq / Math.max(1, p.toSeq)) * 100)}%), ${Math.round(p.read / (p.elapsedMs / 1000))} events/s`),
    }),
  );
  if (r.toSeq === 0) throw new CliError("NOT_FOUND", "the stream holds no events to replay");
  emit(io, values.json ?? false, r, () => replayText(r));
  return r.matches === false || !r.projector.caughtUp ? EXIT_FAILED : EXIT_OK;
};

export function replayText(r: RebuildResult): string {
  const rate = r.elapsedMs > 0 ? Math.round(r.read / (r.elapsedMs / 1000)) : r.read;
  const head = `replayed ${r.read} events up to seq ${r.toSeq}${r.invalid > 0 ? ` (${r.invalid} not valid events, left out)` : ""} in ${(r.elapsedMs / 1000).toFixed(2)}s, ${rate} events/s`;
  const leftOut = r.invalidSamples.map((m) => `left out seq ${m.seq} ${m.subject}: ${m.reason}`);
  const rows = READ_MODEL_NAMES.map((name) => ({
    name,
    bucket: r.buckets?.[name] ?? "(not written)",
    keys: r.rebuilt[name].keys,
    digest: r.rebuilt[name].digest,
    live: r.live?.[name].digest,
  }));
  const table = renderTable(rows, [
    { title: "MODEL", value: (x) => x.name },
    { title: "REBUILT INTO", value: (x) => x.bucket },
    { title: "KEYS", value: (x) => String(x.keys) },
    { title: "DIGEST", value: (x) => x.digest },
    { title: "LIVE", value: (x) => (x.live === undefined ? "-" : x.live === x.digest ? "same" : x.live) },
  ]);
  const verdict = !r.projector.caughtUp
    ? `PROJECTOR BEHIND: ${projectorBehindText(r.projector)}; live models not compared`
    : r.matches === undefined
      ? `live models are at seq ${r.liveCursor}, not ${r.toSeq} (the projector moved on during the replay): not compared`
      : r.matches
        ? `every digest equals the live models' at seq ${r.toSeq}`
        : `DIGESTS DIFFER from the live models at seq ${r.toSeq}`;
  return [head, ...leftOut, table, verdict].join("\n");
}
