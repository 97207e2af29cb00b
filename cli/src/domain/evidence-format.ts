import type { EvidenceFinding, EvidenceReport } from "@warden/evidence";

/** A finding about the evidence as a whole: the notary has not sealed the stream's end. */
export interface NotaryFinding {
  readonly kind: "notary_behind";
  readonly detail: string;
  readonly sealedThrough: number;
  readonly streamSeq: number;
}

export function notaryFinding(p: { readonly sealedThrough: number; readonly target: number }): NotaryFinding {
  const n = p.target - p.sealedThrough;
  return {
    kind: "notary_behind",
    detail: `the notary has sealed through seq ${p.sealedThrough} of ${p.target}: the last ${n} message${n === 1 ? " is" : "s are"} not yet evidence (is the notary running?)`,
    sealedThrough: p.sealedThrough,
    streamSeq: p.target,
  };
}

/** One line per finding: what, where (seq, call, event type, checkpoint), why. */
export function evidenceFindingLine(f: EvidenceFinding): string {
  const where = [
    f.seq === undefined ? undefined : `seq ${f.seq}`,
    f.callId === undefined ? undefined : `call ${f.callId}`,
    f.type,
    f.checkpoint === undefined ? undefined : `checkpoint #${f.checkpoint}`,
  ].filter((x) => x !== undefined);
  return `TAMPER ${f.kind}${where.length > 0 ? ` ${where.join(" ")}` : ""}: ${f.detail}`;
}

export function evidenceSummary(r: EvidenceReport, notary?: NotaryFinding): string {
  const head =
    `checked the evidence of ${r.messages} message${r.messages === 1 ? "" : "s"} against ${r.checkpoints} signed checkpoint${r.checkpoints === 1 ? "" : "s"}` +
    ` (sealed through seq ${r.sealedThrough}${r.agedOut > 0 ? `; ${r.agedOut} sealed messages aged out by retention` : ""}): ` +
    (r.findings.length === 0 ? "no findings" : `${r.findings.length} finding${r.findings.length === 1 ? "" : "s"}`);
  return [head, ...r.findings.map(evidenceFindingLine), ...(notary ? [`FINDING ${notary.kind}: ${notary.detail}`] : [])].join("\n");
}
