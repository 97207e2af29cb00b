import { messageHash } from "@warden/contracts/events";
import { parseCallSubject } from "@warden/contracts/subjects";
import { decodeCallMessage, decodeFailureText } from "@warden/projections";
import { alignLeaves } from "./align.js";
import { chainFindings, grantFindings, writerFindings, type StoredEvent, type UnreadableMessage } from "./call-chains.js";
import { checkCheckpointSignature, checkpointHash, leafPrefixesOf, LEAF_PREFIX_BYTES, pinKeys, sealedSeqsOf, type Checkpoint } from "./checkpoint.js";
import type { EvidenceFinding } from "./findings.js";
import { eventLeaf, merkleRoot } from "./merkle.js";
import { whoMayWrite } from "./writer-roles.js";
import { legacyMessageHash } from "./legacy-hash.js";

/** A message of the call stream as stored: its sequence, subject and exact bytes. */
export interface StoredMessage {
  readonly seq: number;
  readonly subject: string;
  readonly data: Uint8Array;
}

export interface EvidenceInput {
  /** The messages, in stream order. */
  readonly messages: readonly StoredMessage[];
  /** The notary's checkpoints, in the order it wrote them. */
  readonly checkpoints: readonly Checkpoint[];
  /** Public keys (SPKI DER, base64) pinned at provisioning. */
  readonly notaryKeys: readonly string[];
  readonly approverKeys: readonly string[];
  /**
   * The messages and checkpoints are the whole stream from its beginning (the live stream, a full
   * export): the first checkpoint must be #0 and an event's cause must be among the messages.
   */
  readonly complete: boolean;
  /** The stream's first sequence now: sealed messages before it were aged out by retention, not removed. */
  readonly firstSeq?: number;
}

export interface EvidenceReport {
  readonly findings: EvidenceFinding[];
  readonly messages: number;
  readonly checkpoints: number;
  /** The last sequence a valid checkpoint sealed (0 when none). */
  readonly sealedThrough: number;
  /** Messages after the last checkpoint (not yet sealed, or not sealable: see findings). */
  readonly unsealed: readonly { readonly seq: number; readonly callId?: string; readonly type?: string }[];
  /** Sealed messages the stream no longer holds because retention aged them out. */
  readonly agedOut: number;
}

interface Sealed {
  readonly checkpoint: number;
  readonly seq: number;
  readonly leaf: string;
}

/**
 * Everything an auditor can check without trusting the bus: the notary's signed checkpoints and
 * their chain, every message against what was sealed (altered, removed, moved, inserted), each
 * call's hash chain, the roles that may write each event, and each grant's signature.
 */
export function verifyEvidence(input: EvidenceInput): EvidenceReport {
  const findings: EvidenceFinding[] = [];
  const trusted = trustedCheckpoints(input, findings);
  const sealed: Sealed[] = trusted.flatMap((c) => {
    const seqs = sealedSeqsOf(c.statement);
    return leafPrefixesOf(c.statement).map((leaf, i) => ({ checkpoint: c.statement.index, seq: seqs[i]!, leaf }));
  });

  const leaves = input.messages.map((m) => eventLeaf(m.subject, m.data));
  const unreadable: UnreadableMessage[] = [];
  const stored: (StoredEvent | undefined)[] = input.messages.map((m) => storedEvent(m, findings, unreadable));
  const describe = (a: number) => {
    const m = input.messages[a]!;
    const e = stored[a]?.event;
    const parsed = e === undefined ? parseCallSubject(m.subject) : undefined;
    return { seq: m.seq, ...(e ? { callId: e.callId, type: e.type, eventId: e.eventId } : parsed ? { callId: parsed.callId } : {}) };
  };

  const al = alignLeaves(
    sealed.map((s) => s.leaf),
    leaves.map((l) => l.subarray(0, LEAF_PREFIX_BYTES).toString("hex")),
  );
  // where each unmatched message and each missing sealed one sit: after which matched sealed position
  const anchorOfActual = new Map<number, number>();
  let last = -1;
  for (let a = 0; a < leaves.length; a++) {
    const e = al.matched.get(a);
    if (e !== undefined) last = Math.max(last, e);
    else anchorOfActual.set(a, last);
  }
  const matchedExpected = new Set(al.matched.values());
  const anchorOfExpected = new Map<number, number>();
  last = -1;
  for (let e = 0; e < sealed.length; e++) {
    if (matchedExpected.has(e)) last = e;
    else anchorOfExpected.set(e, last);
  }

  const missingByAnchor = groupBy(al.missing, (e) => anchorOfExpected.get(e)!);
  const unsealed: { seq: number; callId?: string; type?: string }[] = [];
  let agedOut = 0;
  for (const a of al.unknown) {
    const anchor = anchorOfActual.get(a)!;
    const replaced = missingByAnchor.get(anchor)?.shift();
    if (replaced !== undefined) {
      const s = sealed[replaced]!;
      findings.push({ ...describe(a), checkpoint: s.checkpoint, kind: "event_altered", detail: `differs from the message checkpoint #${s.checkpoint} sealed at seq ${s.seq}` });
    } else if (anchor === sealed.length - 1 || sealed.length === 0) {
      unsealed.push(describe(a));
    } else {
      const after = anchor >= 0 ? sealed[anchor]! : undefined;
      findings.push({
        ...describe(a),
        kind: "event_inserted",
        detail: `no checkpoint sealed it, yet it sits among sealed messages${after ? ` (after the one sealed at seq ${after.seq} in checkpoint #${after.checkpoint})` : ""}`,
      });
    }
  }
  for (const rest of missingByAnchor.values()) {
    for (const e of rest) {
      const s = sealed[e]!;
      if (input.firstSeq !== undefined && s.seq < input.firstSeq) {
        agedOut++;
        continue;
      }
      const anchor = anchorOfExpected.get(e)!;
      const before = anchor >= 0 ? sealed[anchor] : undefined;
      findings.push({
        seq: s.seq,
        checkpoint: s.checkpoint,
        kind: "event_removed",
        detail: `checkpoint #${s.checkpoint} sealed a message at seq ${s.seq} that is gone${before ? ` (it came after the one sealed at seq ${before.seq})` : ""}`,
      });
    }
  }
  for (const a of al.moved) {
    const s = sealed[al.matched.get(a)!]!;
    findings.push({ ...describe(a), checkpoint: s.checkpoint, kind: "event_reordered", detail: `sealed at seq ${s.seq} in checkpoint #${s.checkpoint}, now out of that order` });
  }
  findings.push(...rootFindings(trusted, sealed, al, leaves));

  const events = stored.filter((e): e is StoredEvent => e !== undefined);
  const historyAgedOut = input.firstSeq !== undefined && input.firstSeq > 1;
  findings.push(...chainFindings(events, unreadable, input.complete, historyAgedOut), ...writerFindings(events), ...grantFindings(events, pinKeys(input.approverKeys)));
  const lastTrusted = trusted.at(-1);
  return {
    findings: findings.sort((x, y) => (x.seq ?? 0) - (y.seq ?? 0)),
    messages: input.messages.length,
    checkpoints: input.checkpoints.length,
    sealedThrough: lastTrusted?.statement.toSeq ?? 0,
    unsealed,
    agedOut,
  };
}

/** Checkpoints whose signature verifies with a pinned key and whose chain holds; the rest are findings. */
function trustedCheckpoints(input: EvidenceInput, findings: EvidenceFinding[]): Checkpoint[] {
  const keys = pinKeys(input.notaryKeys);
  const trusted: Checkpoint[] = [];
  let prev: Checkpoint | undefined;
  for (const c of input.checkpoints) {
    const s = c.statement;
    const at = { checkpoint: s.index, seq: s.fromSeq };
    const sig = checkCheckpointSignature(c, keys);
    if (sig !== "valid") {
      findings.push(
        sig === "unknown_key"
          ? { ...at, kind: "checkpoint_key_unknown", detail: `checkpoint #${s.index} (seq ${s.fromSeq}–${s.toSeq}) is signed with key ${c.keyId}, which is not a pinned notary key` }
          : { ...at, kind: "checkpoint_signature_invalid", detail: `the signature of checkpoint #${s.index} (seq ${s.fromSeq}–${s.toSeq}) does not verify` },
      );
      prev = c;
      continue;
    }
    const prefixes = leafPrefixesOf(s).length;
    if (prefixes !== s.count || sealedSeqsOf(s).length !== s.count) {
      findings.push({ ...at, kind: "checkpoint_malformed", detail: `checkpoint #${s.index} lists ${prefixes} leaves for ${s.count} messages in seq ${s.fromSeq}–${s.toSeq}` });
      prev = c;
      continue;
    }
    const broken = chainBreak(prev, c, input.complete);
    if (broken !== undefined) findings.push({ ...at, kind: "checkpoint_chain_broken", detail: broken });
    trusted.push(c);
    prev = c;
  }
  return trusted;
}

function chainBreak(prev: Checkpoint | undefined, c: Checkpoint, complete: boolean): string | undefined {
  const s = c.statement;
  if (prev === undefined) {
    if (complete && (s.index !== 0 || s.prev !== null)) return `the first checkpoint is #${s.index}: checkpoints #0–#${s.index - 1} are missing`;
    return undefined;
  }
  const p = prev.statement;
  if (s.index !== p.index + 1) return `checkpoint #${s.index} follows #${p.index}: ${s.index > p.index + 1 ? "checkpoints between them are missing" : "the checkpoints are out of order"}`;
  if (s.prev !== checkpointHash(p)) return `checkpoint #${s.index} does not name #${p.index} as its predecessor (a checkpoint was replaced)`;
  if (s.fromSeq !== p.toSeq + 1) return `checkpoint #${s.index} starts at seq ${s.fromSeq}, but #${p.index} ended at seq ${p.toSeq}`;
  return undefined;
}

function rootFindings(trusted: readonly Checkpoint[], sealed: readonly Sealed[], al: ReturnType<typeof alignLeaves>, leaves: readonly Buffer[]): EvidenceFinding[] {
  const actualOf = new Map<number, number>();
  for (const [a, e] of al.matched) actualOf.set(e, a);
  const moved = new Set(al.moved);
  const out: EvidenceFinding[] = [];
  let start = 0;
  for (const c of trusted) {
    const s = c.statement;
    const range = sealed.slice(start, start + s.count).map((_, i) => actualOf.get(start + i));
    start += s.count;
    // a changed, missing or moved message is already a finding; the root is checked where all line up
    if (range.some((a) => a === undefined || moved.has(a))) continue;
    const root = `sha256:${merkleRoot(range.map((a) => leaves[a!]!)).toString("hex")}`;
    if (root !== s.root) out.push({ checkpoint: s.index, seq: s.fromSeq, kind: "checkpoint_root_mismatch", detail: `the messages of checkpoint #${s.index} (seq ${s.fromSeq}–${s.toSeq}) do not hash to its signed root` });
  }
  return out;
}

function storedEvent(m: StoredMessage, findings: EvidenceFinding[], unreadable: UnreadableMessage[]): StoredEvent | undefined {
  const d = decodeCallMessage(m.subject, m.data);
  if (!d.ok) {
    unreadable.push({ subject: m.subject, hash: messageHash(m.data) });
    // a caller may write junk on its own request subject (the registry refuses it; it stays sealed
    // as written); a message no role but the admin could have written is a finding
    if (whoMayWrite(m.subject).length > 0) return undefined;
    const parsed = parseCallSubject(m.subject);
    findings.push({ seq: m.seq, ...(parsed ? { callId: parsed.callId } : {}), kind: "event_unreadable", detail: `${decodeFailureText(d)}, on a subject only the admin may write` });
    return undefined;
  }
  const legacyHash = legacyMessageHash(m.data);
  return { seq: m.seq, subject: m.subject, event: d.event, hash: messageHash(m.data), ...(legacyHash === undefined ? {} : { legacyHash }) };
}

function groupBy<T>(items: readonly T[], key: (t: T) => number): Map<number, T[]> {
  const out = new Map<number, T[]>();
  for (const t of items) {
    const k = key(t);
    const list = out.get(k);
    if (list === undefined) out.set(k, [t]);
    else list.push(t);
  }
  return out;
}
