import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { getPolicyDocument } from "@warden/policy";
import { CALL_MODES, isSafeToken, PolicyDocumentSchema, type CallMode, type PolicyDocument } from "@warden/contracts";
import { auditRow, CALL_STATES, matchesAudit, verifyCalls, type AuditFilter, type CallState, type Finding } from "@warden/projections";
import { awaitProjector, PROJECTOR_WAIT_MS, type ProjectorPosition } from "@warden/projector";
import { parse as parseYaml } from "yaml";
import { readAuditCalls } from "../audit-reader.js";
import type { AUDIT_OPTIONS } from "../command-list.js";
import { withBus } from "../connect.js";
import { auditTable, invalidNote, projectorFinding, verifySummary, type ProjectorFinding } from "../domain/audit-format.js";
import { parseDuration } from "../domain/options.js";
import { parseTimeBound } from "../domain/time-range.js";
import { CliError, EXIT_FAILED, EXIT_OK, usageError } from "../errors.js";
import type { Command } from "../io.js";

/**
 * `warden audit [--since T] [--until T] [filters] [--json|--jsonl] [--verify]`: the calls requested
 * in a time range, replayed from the stream; --verify checks each against the invariants and exits
 * 1 naming every violation, and checks that the projector reached the stream's end (the read
 * models miss whatever it has not: a stuck or lagging projector is a finding too).
 */
export const auditCommand: Command<typeof AUDIT_OPTIONS> = async ({ values }, io) => {
  if (values.json && values.jsonl) throw usageError("--json and --jsonl exclude each other");
  const now = new Date();
  const since = parseTimeBound("--since", values.since, now);
  const until = parseTimeBound("--until", values.until, now);
  const filter = parseFilter(values);
  const policyFile = values.policy === undefined ? undefined : await readPolicyFile(resolve(io.cwd, values.policy));
  const projectorWaitMs = parseDuration("--projector-wait", values["projector-wait"], PROJECTOR_WAIT_MS);

  const { read, doc, projector } = await withBus(io, { name: values.as, creds: values.creds, fallback: "admin" }, async (bus) => {
    const r = await readAuditCalls(bus, { ...(since ? { since } : {}), ...(until ? { until } : {}) });
    let d: PolicyDocument | undefined = policyFile;
    let p: ProjectorPosition | undefined;
    if (values.verify) {
      if (d === undefined) {
        const stored = await getPolicyDocument(bus);
        if (!stored.ok) throw new CliError(stored.error.code, stored.error.message);
        d = stored.value;
      }
      // the stream's end when the audit began: the read models must hold at least that much
      p = await awaitProjector(bus, { target: r.toSeq, waitMs: projectorWaitMs });
    }
    return { read: r, doc: d, projector: p };
  });
  const all = [...read.calls].sort((a, b) => (a.requestedAt ?? a.firstTs).localeCompare(b.requestedAt ?? b.firstTs) || a.callId.localeCompare(b.callId));
  const listed = all.filter((m) => matchesAudit(m, filter));
  const rows = listed.map(auditRow);
  // budgets span every call of a run, so the check sees all of them; findings are kept for the listed ones
  const shown = new Set(listed.map((m) => m.callId));
  const findings: Finding[] | undefined = values.verify && doc ? verifyCalls(all, doc).filter((f) => shown.has(f.callId)) : undefined;
  const behind: ProjectorFinding | undefined = projector === undefined || projector.caughtUp ? undefined : projectorFinding(projector);
  const range = { since: since?.toISOString() ?? null, until: until?.toISOString() ?? null };
  const invalidEvents = read.invalid === 0 ? {} : { invalidEvents: { count: read.invalid, first: read.invalidSamples } };

  if (values.jsonl) {
    const byCall = new Map<string, Finding[]>();
    for (const f of findings ?? []) byCall.set(f.callId, [...(byCall.get(f.callId) ?? []), f]);
    for (const r of rows) io.out(JSON.stringify(findings ? { ...r, findings: byCall.get(r.callId) ?? [] } : r));
    // one line per call on stdout; what concerns no call goes to stderr
    if (behind) io.err(`FINDING ${behind.kind}: ${behind.detail}`);
  } else if (values.json) {
    const verified = findings ? { verified: findings.length === 0 && behind === undefined, policyVersion: doc?.version, findings: [...findings, ...(behind ? [behind] : [])], projector } : {};
    io.out(JSON.stringify({ ...range, filter, calls: rows, ...verified, ...invalidEvents }, null, 2));
  } else {
    io.out(auditTable(rows));
    if (read.invalid > 0) io.out(`\n${invalidNote(read.invalid, read.invalidSamples)}`);
    if (findings) io.out(`\n${verifySummary(rows.length, findings, doc?.version ?? "?", behind)}`);
  }
  return (findings !== undefined && findings.length > 0) || behind !== undefined ? EXIT_FAILED : EXIT_OK;
};

function parseFilter(v: { principal?: string; tool?: string; domain?: string; mode?: string; outcome?: string }): AuditFilter {
  if (v.principal !== undefined && !isSafeToken(v.principal)) throw usageError(`--principal ${JSON.stringify(v.principal)} is not a principal`);
  if (v.mode !== undefined && !(CALL_MODES as readonly string[]).includes(v.mode)) throw usageError(`--mode must be one of ${CALL_MODES.join(", ")}`);
  if (v.outcome !== undefined && !(CALL_STATES as readonly string[]).includes(v.outcome)) throw usageError(`--outcome must be one of ${CALL_STATES.join(", ")}`);
  return {
    ...(v.principal === undefined ? {} : { principal: v.principal }),
    ...(v.tool === undefined ? {} : { tool: v.tool }),
    ...(v.domain === undefined ? {} : { domain: v.domain }),
    ...(v.mode === undefined ? {} : { mode: v.mode as CallMode }),
    ...(v.outcome === undefined ? {} : { outcome: v.outcome as CallState }),
  };
}

async function readPolicyFile(file: string): Promise<PolicyDocument> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    throw new CliError("NOT_FOUND", `cannot read ${file}: ${(err as Error).message}`);
  }
  const parsed = PolicyDocumentSchema.safeParse(parseYaml(text));
  if (!parsed.success) throw usageError(`--policy ${file} is not a valid policy document: ${parsed.error.issues[0]?.message ?? "invalid"}`);
  return parsed.data;
}
