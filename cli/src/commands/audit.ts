import { resolve } from "node:path";
import { getPolicyDocument } from "@warden/policy";
import { isSafeToken } from "@warden/contracts/subjects";
import { CALL_MODES, type CallMode } from "@warden/contracts/descriptor";
import { PolicyDocumentSchema, type PolicyDocument } from "@warden/contracts/policy";
import { verifyEvidence, type EvidenceReport } from "@warden/evidence";
import { CALL_STATES, type AuditFilter, type CallState } from "@warden/projections";
import { awaitProjector, PROJECTOR_WAIT_MS, type ProjectorPosition } from "@warden/projector";
import { parse as parseYaml } from "yaml";
import { readAuditCalls } from "../audit-reader.js";
import type { AUDIT_OPTIONS } from "../command-list.js";
import { withBus } from "../connect.js";
import { notaryFinding, type NotaryFinding } from "../domain/evidence-format.js";
import { loadPinnedKeys, NOTARY_WAIT_MS, readStreamEvidence } from "../evidence-reader.js";
import { parseDuration } from "../domain/options.js";
import { parseTimeBound } from "../domain/time-range.js";
import { CliError, usageError } from "../errors.js";
import { readNamedText } from "../named-file.js";
import type { Command } from "../io.js";
import { auditExportFile } from "./audit-file.js";
import { AUDIT_FORMATS, renderAudit, type AuditFormat } from "./audit-render.js";

/**
 * `warden audit [--since T] [--until T] [filters] [--format table|json|jsonl|csv] [--wide] [--verify]`: the calls requested
 * in a time range, replayed from the stream; --verify checks each against the invariants and exits
 * 1 naming every violation, and checks that the projector reached the stream's end (the read
 * models miss whatever it has not: a stuck or lagging projector is a finding too). It also checks
 * the evidence of the whole stream against the notary's signed checkpoints and the pinned keys
 * (WARDEN_HOME, or --keys). With --file it audits an export instead, with no bus at all.
 */
export const auditCommand: Command<typeof AUDIT_OPTIONS> = async ({ values }, io) => {
  const format = auditFormat(values);
  const wide = values.wide ?? false;
  const now = new Date();
  const since = parseTimeBound("--since", values.since, now);
  const until = parseTimeBound("--until", values.until, now);
  const filter = parseFilter(values);
  const policyFile = values.policy === undefined ? undefined : await readPolicyFile(resolve(io.cwd, values.policy));
  const projectorWaitMs = parseDuration("--projector-wait", values["projector-wait"], PROJECTOR_WAIT_MS);
  const notaryWaitMs = parseDuration("--notary-wait", values["notary-wait"], NOTARY_WAIT_MS);
  if (values.head !== undefined && values.file === undefined) throw usageError("--head checks an export against the notary's head log: give --file too");
  if (values.file !== undefined) {
    if (!values.verify) throw usageError("--file audits an export: give --verify too (and --keys, the keys file the operator handed you)");
    return auditExportFile(resolve(io.cwd, values.file), { since, until, filter, policy: policyFile, keysFile: values.keys === undefined ? undefined : resolve(io.cwd, values.keys), headFile: values.head === undefined ? undefined : resolve(io.cwd, values.head), format, wide }, io);
  }
  const keys = values.verify ? await loadPinnedKeys(io, values.keys === undefined ? undefined : resolve(io.cwd, values.keys)) : undefined;

  const { read, doc, projector, evidence, notary } = await withBus(io, { name: values.as, creds: values.creds, fallback: "admin" }, async (bus) => {
    const r = await readAuditCalls(bus, { ...(since ? { since } : {}), ...(until ? { until } : {}) });
    let d: PolicyDocument | undefined = policyFile;
    let p: ProjectorPosition | undefined;
    let e: EvidenceReport | undefined;
    let n: NotaryFinding | undefined;
    if (values.verify && keys !== undefined) {
      if (d === undefined) {
        const stored = await getPolicyDocument(bus);
        if (!stored.ok) throw new CliError(stored.error.code, stored.error.message);
        d = stored.value;
      }
      // the stream's end when the audit began: the read models must hold at least that much
      p = await awaitProjector(bus, { target: r.toSeq, waitMs: projectorWaitMs });
      const ev = await readStreamEvidence(bus, { notaryWaitMs });
      e = verifyEvidence({
        messages: ev.messages,
        checkpoints: ev.checkpoints,
        notaryKeys: keys.notaryPublicKeys,
        approverKeys: keys.approverPublicKeys,
        complete: true,
        firstSeq: ev.firstSeq,
      });
      e = { ...e, findings: [...ev.invalidCheckpoints.map((c) => ({ kind: "checkpoint_malformed" as const, detail: `message ${c.seq} of WARDEN_NOTARY is not a checkpoint: ${c.reason}` })), ...e.findings] };
      if (!ev.notary.caughtUp) n = notaryFinding(ev.notary);
    }
    return { read: r, doc: d, projector: p, evidence: e, notary: n };
  });
  return renderAudit({ calls: read.calls, invalid: read.invalid, invalidSamples: read.invalidSamples, doc, projector, evidence, notary, since, until, filter, format, wide, verify: values.verify ?? false }, io);
};

/** `--format`, or its older spellings `--json` / `--jsonl`; a table by default. */
function auditFormat(v: { json?: boolean; jsonl?: boolean; format?: string }): AuditFormat {
  const given = [...(v.format === undefined ? [] : [v.format]), ...(v.json ? ["json"] : []), ...(v.jsonl ? ["jsonl"] : [])];
  if (v.format !== undefined && !(AUDIT_FORMATS as readonly string[]).includes(v.format)) throw usageError(`--format must be one of ${AUDIT_FORMATS.join(", ")}`);
  if (new Set(given).size > 1) throw usageError(`${given.map((g) => (g === v.format ? `--format ${g}` : `--${g}`)).join(" and ")} exclude each other`);
  return (given[0] ?? "table") as AuditFormat;
}

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
  const parsed = PolicyDocumentSchema.safeParse(parseYaml(await readNamedText(file)));
  if (!parsed.success) throw usageError(`--policy ${file} is not a valid policy document: ${parsed.error.issues[0]?.message ?? "invalid"}`);
  return parsed.data;
}
