import { entryToJson, type Bus } from "@warden/bus";
import { BUCKET_POLICY } from "@warden/contracts/subjects";
import { EMPTY_POLICY_DOCUMENT, POLICY_DOCUMENT_KEY, PolicyDocumentSchema, type PolicyChanged, type PolicyChangeWhatIf, type PolicyDocument } from "@warden/contracts/policy";
import { authorOf, getStoredPolicyDocument, putPolicyDocument } from "@warden/policy";
import { diffPolicyDocuments, whatIf, type PolicyChange, type WhatIfReport } from "@warden/policy-engine";
import { stringify as toYaml } from "yaml";
import { onePositional } from "../args.js";
import type { POLICY_HISTORY_OPTIONS, POLICY_OPTIONS, POLICY_SET_OPTIONS } from "../command-list.js";
import { withBus } from "../connect.js";
import { policySetText, type PolicySetPreview } from "../domain/policy-set-format.js";
import { unifiedDiff } from "../domain/text-diff.js";
import { parseTimeBound } from "../domain/time-range.js";
import { CliError, EXIT_FAILED, EXIT_OK, usageError } from "../errors.js";
import type { Command, CommandIo } from "../io.js";
import { emit, renderTable } from "../output.js";
import { readPolicyChanges } from "../policy-history-reader.js";
import { readPolicyDocument, registryTools } from "../policy-file.js";
import { readWhatIfCalls } from "../whatif-reader.js";

/** How far back `policy set` replays the recorded calls by default. */
const SET_WHATIF_SINCE = "1d";

/**
 * `warden policy set FILE [--yes] [--dry-run] [--since T]`: checks the document as `policy check`
 * does, shows what changes against the document in force (each change, then the YAML diff) and
 * what the change would have done to the calls of the last day (`policy whatif`), then asks.
 * Without a terminal to ask on, it refuses unless `--yes`. Stored over exactly the revision shown
 * (another author's change in between refuses it: POLICY_CONFLICT), and recorded with its author,
 * the identity the credentials name (`policy history`).
 */
export const policySetCommand: Command<typeof POLICY_SET_OPTIONS> = async ({ values, positionals }, io) => {
  const path = onePositional(positionals, "FILE (a JSON or YAML policy document)");
  const json = values.json ?? false;
  const now = new Date();
  const since = parseTimeBound("--since", values.since ?? SET_WHATIF_SINCE, now) ?? new Date(now.getTime() - 24 * 3_600_000);
  const { document } = await readPolicyDocument(io, path);
  return withBus(io, { name: values.as, creds: values.creds, fallback: "admin" }, async (bus) => {
    const stored = await getStoredPolicyDocument(bus);
    if (!stored.ok) throw new CliError(stored.error.code, `${stored.error.message}; the services keep the last valid one in force`);
    const before = stored.value.revision === undefined ? undefined : stored.value.document;
    const changes = diffPolicyDocuments(before, document);
    const read = await readWhatIfCalls(bus, { since, until: now }, {});
    const report = whatIf(document, read.decisions, await registryTools(bus), { examples: 3 });
    const preview: PolicySetPreview = {
      file: path,
      author: authorOf(bus),
      inForce: { version: before?.version ?? null, revision: stored.value.revision ?? null },
      version: document.version,
      changes,
      diff: unifiedDiff(before === undefined ? "" : toYaml(before), toYaml(document), {
        before: before === undefined ? "(none stored: the built-in defaults)" : `in force: ${before.version} (revision ${stored.value.revision})`,
        after: path,
      }),
      whatIf: { scope: { file: path, since: since.toISOString(), until: now.toISOString(), requested: read.requested, undecided: read.undecided }, report },
    };
    const summary = whatIfSummary(preview, report);
    if (changes.length === 0) {
      emit(io, json, { ok: true, applied: false, reason: "unchanged", ...previewJson(preview) }, () => `${policySetText(preview)}\nnothing to store: ${path} is the document in force`);
      return EXIT_OK;
    }
    if (values["dry-run"]) {
      emit(io, json, { ok: true, applied: false, reason: "dry_run", ...previewJson(preview) }, () => `${policySetText(preview)}\nnot stored (--dry-run)`);
      return EXIT_OK;
    }
    if (!json) io.out(policySetText(preview));
    const confirmed = await confirm(io, values.yes ?? false, document.version, preview);
    if (confirmed === undefined) {
      if (json) io.out(JSON.stringify({ ok: false, applied: false, reason: "declined", ...previewJson(preview) }, null, 2));
      else io.out("not stored");
      return EXIT_FAILED;
    }
    const put = await putPolicyDocument(bus, document, { expectedRevision: stored.value.revision ?? 0, whatIf: summary, confirmed });
    if (!put.ok) throw new CliError(put.error.code, put.error.message);
    const { revision, change } = put.value;
    emit(io, json, { ok: true, applied: true, version: document.version, revision, changeId: change.changeId, document, ...previewJson(preview), author: change.author }, () =>
      `policy ${document.version} stored (revision ${revision}) and recorded as changed by ${change.author}; services reload it at once`,
    );
    return EXIT_OK;
  });
};

/** `yes`, `prompt`, or undefined when the person said no. No one to ask and no --yes: a refusal. */
async function confirm(io: CommandIo, yes: boolean, version: string, p: PolicySetPreview): Promise<PolicyChanged["confirmed"] | undefined> {
  if (yes) return "yes";
  if (io.prompt === undefined) {
    throw new CliError(
      "CONFIRMATION_REQUIRED",
      `policy set asks before it applies, and stdin is not a terminal: pass --yes to apply ${version} without asking (--dry-run only shows the changes)`,
    );
  }
  const over = p.inForce.version === null ? "the built-in defaults" : `${p.inForce.version} (revision ${p.inForce.revision})`;
  const answer = await io.prompt(`apply ${version} over ${over}, as ${p.author}? [y/N] `);
  return /^y(es)?$/i.test(answer.trim()) ? "prompt" : undefined;
}

function whatIfSummary(p: PolicySetPreview, r: WhatIfReport): PolicyChangeWhatIf {
  const s = p.whatIf.scope;
  return {
    since: s.since ?? new Date(0).toISOString(),
    until: s.until ?? new Date().toISOString(),
    requested: s.requested,
    replayed: r.replayed,
    changed: r.changed,
    notReplayed: Object.values(r.notReplayed).reduce<number>((n, c) => n + (c ?? 0), 0),
  };
}

function previewJson(p: PolicySetPreview) {
  const { scope, report } = p.whatIf;
  return { file: p.file, author: p.author, inForce: p.inForce, changes: p.changes satisfies readonly PolicyChange[], diff: p.diff, whatIf: { ...scope, ...report } };
}

/** `warden policy show`: the stored document, or the built-in defaults when none is stored. */
export const policyShowCommand: Command<typeof POLICY_OPTIONS> = async ({ values }, io) => {
  const { document, stored } = await withBus(io, { name: values.as, creds: values.creds, fallback: "admin" }, readPolicy);
  emit(io, values.json ?? false, { stored, document }, () =>
    `${stored ? "# the stored policy document" : "# no policy document is stored: the built-in defaults are in force"}\n${toYaml(document)}`,
  );
  return EXIT_OK;
};

/**
 * `warden policy history [--limit N]`: who changed the policy document, when, to what (the
 * records of WARDEN_POLICY_CHANGES, newest last), and the stored revisions no record names
 * (written to the bucket directly, not through `policy set`).
 */
export const policyHistoryCommand: Command<typeof POLICY_HISTORY_OPTIONS> = async ({ values }, io) => {
  const limit = values.limit === undefined ? 20 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) throw usageError(`--limit must be a whole number from 1 to 10000, not ${JSON.stringify(values.limit)}`);
  const h = await withBus(io, { name: values.as, creds: values.creds, fallback: "admin" }, (bus) => readPolicyChanges(bus, limit));
  emit(io, values.json ?? false, h, () => {
    const table = renderTable(h.changes, [
      { title: "REVISION", value: (c) => String(c.revision) },
      { title: "WHEN", value: (c) => c.ts },
      { title: "AUTHOR", value: (c) => c.author },
      { title: "VERSION", value: (c) => `${c.previousVersion ?? "(defaults)"} → ${c.version}` },
      { title: "CONFIRMED", value: (c) => c.confirmed },
      { title: "CHANGES", value: (c) => (c.changes.length === 0 ? "-" : `${c.changes.length}: ${c.changes[0]}${c.changes.length > 1 ? " …" : ""}`), max: 80 },
    ]);
    const notes = [
      ...h.unrecorded.map((u) => `revision ${u.revision} (${u.version ?? "unreadable"}, stored ${u.at}) has no change record: it was written to ${BUCKET_POLICY} directly, not through \`policy set\``),
      ...h.invalid.map((i) => `message ${i.seq} of the change records is not a record: ${i.reason}`),
    ];
    return [h.changes.length === 0 ? "no policy change recorded" : table, ...notes].join("\n");
  });
  return h.invalid.length > 0 ? EXIT_FAILED : EXIT_OK;
};

async function readPolicy(bus: Bus): Promise<{ document: PolicyDocument; stored: boolean }> {
  const kv = await bus.kvm.open(BUCKET_POLICY);
  const raw = await kv.get(POLICY_DOCUMENT_KEY);
  if (raw === null || raw.operation !== "PUT") return { document: EMPTY_POLICY_DOCUMENT, stored: false };
  const entry = entryToJson(raw, PolicyDocumentSchema);
  // the services keep the last valid document in force when an invalid one is written
  if (entry === undefined) throw new CliError("INTERNAL", "the stored policy document is invalid; store a valid one with `warden policy set FILE`");
  return { document: entry.value, stored: true };
}
