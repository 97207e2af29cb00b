import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureTopology } from "@warden/bus";
import { eventHash } from "@warden/contracts/events";
import { STREAM_CALLS } from "@warden/contracts/subjects";
import {
  checkpointHash,
  checkpointRef,
  checkpointStatement,
  eventLeaf,
  exportDigest,
  sealedSeqsOf,
  signCheckpoint,
  signExportTrailer,
  type Checkpoint,
  type EvidenceFinding,
  type ExportTrailer,
} from "@warden/evidence";
import { loadSigningKey } from "@warden/service-kit";
import { lastCheckpoint } from "@warden/notary";
import { eventually } from "@warden/testing";
import { runWarden, type CliRan } from "../support/cli.js";
import { startTestWarden, type TestWarden } from "../support/warden.js";



interface ExportLine {
  kind: string;
  seq?: number;
  subject?: string;
  data?: string;
  checkpoint?: Checkpoint;
  trailer?: ExportTrailer;
  checkpoints?: number;
  messages?: number;
}

/** The finding kinds verification had before exports carried a trailer and a head log could be given. */
const EXTENT_KINDS: readonly string[] = ["export_truncated", "export_altered", "checkpoint_resealed", "head_invalid"];

interface Audited {
  readonly verified: boolean;
  readonly evidence: { readonly findings: EvidenceFinding[]; readonly checkpoints: number; readonly messages: number };
}

/** One event of the export: its line index, seq, and parsed event. */
function eventsOf(lines: readonly ExportLine[]) {
  return lines.flatMap((l, i) => (l.kind === "message" && l.data !== undefined ? [{ i, seq: l.seq!, event: JSON.parse(l.data) as { type: string; callId: string; eventId: string; causationId: string | null; data: Record<string, unknown> } }] : []));
}

describe("tamper-evident history: the notary's checkpoints and each call's hash chain", () => {
  let w: TestWarden;
  let dir: string;
  let exportFile: string;
  let keysFile: string;
  let lines: ExportLine[];
  let searchCallId: string;
  let grantedCallId: string;

  /** The notary seals the stream's end within its interval. */
  const sealedToStreamEnd = async () => {
    const last = (await w.bus.jsm.streams.info(STREAM_CALLS)).state.last_seq;
    await eventually(async () => expect((await lastCheckpoint(w.bus))?.checkpoint.statement.toSeq).toBeGreaterThanOrEqual(last), 15_000);
  };

  beforeAll(async () => {
    w = await startTestWarden({ demo: true });
    dir = mkdtempSync(join(tmpdir(), "warden-evidence-"));
    const bot = await w.agent("support-bot");
    const alice = await w.approver("alice");
    const search = await bot.call("kb.search", { query: "refund" }, { mode: "llm" });
    expect(search).toMatchObject({ ok: true, status: "succeeded" });
    searchCallId = search.callId;
    expect(await bot.call("kb.search", { query: "invoice" }, { mode: "llm" })).toMatchObject({ ok: true });
    expect(await bot.call("kb.reindex", {}, { mode: "llm" })).toMatchObject({ ok: false, error: { code: "POLICY_DENIED" } });
    // sealed before the rest is written: the export then holds at least two checkpoints (the
    // key-custody tests cut it in half), however late the notary made its first read
    await sealedToStreamEnd();
    const held = await bot.call("customer.message", { customerId: "C-9", text: "your refund is on its way" }, { mode: "plan" });
    expect(held).toMatchObject({ status: "awaiting_approval" });
    grantedCallId = held.callId;
    const pending = await alice.pending();
    const item = pending.ok ? pending.value.find((p) => p.callId === held.callId) : undefined;
    expect(await alice.approve(item!.approvalId, item!.argsHash)).toMatchObject({ ok: true });
    await eventually(async () => expect(await bot.call("kb.search", { query: "after" }, { mode: "llm" })).toMatchObject({ ok: true }));
    await sealedToStreamEnd();

    exportFile = join(dir, "history.jsonl");
    keysFile = join(dir, "keys.json");
    expect(await runWarden(w.nats.home.dir, "audit", "export", "--out", exportFile)).toMatchObject({ code: 0 });
    expect(await runWarden(w.nats.home.dir, "audit", "keys", "--out", keysFile)).toMatchObject({ code: 0 });
    lines = readFileSync(exportFile, "utf8").trim().split("\n").map((l) => JSON.parse(l) as ExportLine);
  }, 120_000);
  afterAll(async () => {
    await w.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const offline = async (name: string, tampered: readonly ExportLine[]): Promise<{ ran: CliRan; audited: Audited }> => {
    const file = join(dir, `${name}.jsonl`);
    writeFileSync(file, `${tampered.map((l) => JSON.stringify(l)).join("\n")}\n`);
    // no bus: the home is an empty folder, the keys come from the auditor's file
    const ran = await runWarden(join(dir, "no-home"), "audit", "--verify", "--file", file, "--keys", keysFile, "--json");
    return { ran, audited: JSON.parse(ran.out) as Audited };
  };

  const kinds = (a: Audited) => a.evidence.findings.map((f) => f.kind);

  it("verifies an untouched stream online and its untouched export offline, with no findings", async () => {
    const online = await runWarden(w.nats.home.dir, "audit", "--verify", "--json");
    expect(online.err).toBe("");
    const o = JSON.parse(online.out) as Audited;
    expect(o.evidence.findings).toEqual([]);
    expect(o).toMatchObject({ verified: true });
    expect(o.evidence.checkpoints).toBeGreaterThan(0);
    expect(online.code).toBe(0);

    const { ran, audited } = await offline("untouched", lines);
    expect(audited.evidence.findings).toEqual([]);
    expect(audited.verified).toBe(true);
    expect(ran.code).toBe(0);
  });

  const argsChanged = (src: readonly ExportLine[]) => {
    const copy = src.map((l) => ({ ...l }));
    const req = eventsOf(copy).find((e) => e.event.callId === searchCallId && e.event.type === "ToolCallRequested")!;
    copy[req.i] = { ...copy[req.i]!, data: JSON.stringify({ ...req.event, data: { ...req.event.data, args: { query: "something else" } } }) };
    return { copy, seq: req.seq };
  };

  it("finds one event's args changed, by seq and call (offline)", async () => {
    const { copy, seq } = argsChanged(lines);
    const { ran, audited } = await offline("args-changed", copy);
    expect(ran.code).toBe(1);
    expect(audited.evidence.findings).toContainEqual(expect.objectContaining({ kind: "event_altered", seq, callId: searchCallId, type: "ToolCallRequested" }));
    // the event that answered the request was written against the original
    expect(audited.evidence.findings).toContainEqual(expect.objectContaining({ kind: "chain_hash_mismatch", callId: searchCallId, type: "ToolArgsValidated" }));
  });

  it("finds one event removed, by seq and the call whose chain it breaks (offline)", async () => {
    const checked = eventsOf(lines).find((e) => e.event.callId === grantedCallId && e.event.type === "ToolPolicyChecked")!;
    const copy = lines.filter((_, i) => i !== checked.i);
    const { ran, audited } = await offline("removed", copy);
    expect(ran.code).toBe(1);
    expect(audited.evidence.findings).toContainEqual(expect.objectContaining({ kind: "event_removed", seq: checked.seq }));
    expect(audited.evidence.findings).toContainEqual(expect.objectContaining({ kind: "chain_cause_missing", callId: grantedCallId, type: "ApprovalRequested" }));
  });

  it("finds two events swapped (offline)", async () => {
    const evs = eventsOf(lines);
    const a = evs.find((e) => e.event.callId === grantedCallId && e.event.type === "ApprovalRequested")!;
    const b = evs.find((e) => e.event.callId === grantedCallId && e.event.type === "ApprovalGranted")!;
    const copy = lines.map((l) => ({ ...l }));
    // each keeps its seq, the contents trade places
    copy[a.i] = { ...lines[b.i]!, seq: a.seq };
    copy[b.i] = { ...lines[a.i]!, seq: b.seq };
    const { ran, audited } = await offline("swapped", copy);
    expect(ran.code).toBe(1);
    expect(kinds(audited)).toContain("event_reordered");
    expect(audited.evidence.findings.find((f) => f.kind === "event_reordered")).toMatchObject({ callId: grantedCallId });
  });

  /** A grant for the denied call, its envelope copied from a real one and its chain hash made to fit. */
  const forgedGrant = () => {
    const evs = eventsOf(lines);
    const granted = evs.find((e) => e.event.callId === grantedCallId && e.event.type === "ApprovalGranted")!;
    const denied = evs.find((e) => e.event.type === "ToolPolicyChecked" && e.event.data["decision"] === "deny")!;
    const forged = { ...granted.event, callId: denied.event.callId, eventId: "forged-grant", causationId: denied.event.eventId, causeHash: eventHash(denied.event) };
    const line: ExportLine = { kind: "message", subject: lines[granted.i]!.subject!.replace(grantedCallId, denied.event.callId), data: JSON.stringify(forged) };
    return { line, insertAt: denied.i + 1, callId: denied.event.callId };
  };

  it("finds an inserted event with a valid-looking envelope, by seq and call (offline)", async () => {
    const { line, insertAt, callId } = forgedGrant();
    // renumbered after it, as a restored edited backup would be
    const copy = [
      ...lines.slice(0, insertAt),
      { ...line, seq: lines[insertAt]!.seq! },
      ...lines.slice(insertAt).map((l) => (l.kind === "message" ? { ...l, seq: l.seq! + 1 } : l)),
    ];
    const { ran, audited } = await offline("inserted", copy);
    expect(ran.code).toBe(1);
    expect(audited.evidence.findings).toContainEqual(expect.objectContaining({ kind: "event_inserted", seq: lines[insertAt]!.seq, callId }));
  });

  describe("key custody: a file cut short, and history re-sealed with the notary's key", () => {
    const offlineWith = async (name: string, tampered: readonly ExportLine[], ...extra: string[]) => {
      const file = join(dir, `${name}.jsonl`);
      writeFileSync(file, `${tampered.map((l) => JSON.stringify(l)).join("\n")}\n`);
      const ran = await runWarden(join(dir, "no-home"), "audit", "--verify", "--file", file, "--keys", keysFile, "--json", ...extra);
      return { ran, audited: JSON.parse(ran.out) as Audited };
    };
    const oldChecks = (a: Audited) => a.evidence.findings.filter((f) => !EXTENT_KINDS.includes(f.kind));

    it("ends an export with the notary's trailer, and verifies it against the head log with no findings", async () => {
      expect(lines.at(-1)).toMatchObject({ kind: "trailer" });
      const { ran, audited } = await offlineWith("with-head", lines, "--head", w.notaryHeadLog);
      expect(audited.evidence.findings).toEqual([]);
      expect(ran.code).toBe(0);
    });

    it("reports export_truncated for the last half of the checkpoints and their messages cut and the header edited, which the checks before trailers passed", async () => {
      const checkpoints = lines.filter((l) => l.kind === "checkpoint");
      const kept = checkpoints.slice(0, Math.ceil(checkpoints.length / 2));
      expect(kept.length).toBeLessThan(checkpoints.length);
      const keptTo = kept.at(-1)!.checkpoint!.statement.toSeq;
      const messages = lines.filter((l) => l.kind === "message" && l.seq! <= keptTo);
      const header = { ...lines[0]!, checkpoints: kept.length, messages: messages.length };
      const { ran, audited } = await offlineWith("cut-in-half", [header, ...kept, ...messages]);
      // the control: every check that ran before trailers finds nothing wrong with the cut file
      expect(oldChecks(audited)).toEqual([]);
      expect(kinds(audited)).toEqual(["export_truncated"]);
      expect(ran.code).toBe(1);
      // the same cut with the old trailer kept: the trailer's digest no longer matches
      const kept2 = await offlineWith("cut-keep-trailer", [header, ...kept, ...messages, lines.at(-1)!]);
      expect(kinds(kept2.audited)).toContain("export_altered");
      expect(kept2.ran.code).toBe(1);
    });

    it("reports checkpoint_resealed against the head log for one call's result rewritten and every checkpoint re-signed with notary.pem, which nothing else finds", async () => {
      const key = loadSigningKey(w.notarySigningKeyPem);
      const copy = lines.slice(0, -1).map((l) => ({ ...l }));
      const finished = eventsOf(copy).find((e) => e.event.callId === searchCallId && e.event.type === "ToolCallFinished")!;
      copy[finished.i] = { ...copy[finished.i]!, data: JSON.stringify({ ...finished.event, data: { ...finished.event.data, output: { hits: ["a result nobody returned"] } } }) };
      // re-seal every checkpoint over the rewritten messages, chained and signed as the notary would
      const bySeq = new Map(copy.filter((l) => l.kind === "message").map((l) => [l.seq!, l]));
      let prev: string | null = null;
      for (const [i, l] of copy.entries()) {
        if (l.kind !== "checkpoint") continue;
        const s = l.checkpoint!.statement;
        const leaves = sealedSeqsOf(s).map((seq) => eventLeaf(bySeq.get(seq)!.subject!, Buffer.from(bySeq.get(seq)!.data!)));
        const statement = checkpointStatement({ index: s.index, fromSeq: s.fromSeq, toSeq: s.toSeq, missing: s.missing, leaves, prev, sealedAt: new Date(s.sealedAt) });
        copy[i] = { kind: "checkpoint", checkpoint: signCheckpoint(statement, key) };
        prev = checkpointHash(statement);
      }
      // and a fresh trailer, signed with the same key
      const body = `${copy.map((l) => JSON.stringify(l)).join("\n")}\n`;
      const resealed = copy.filter((l) => l.kind === "checkpoint").map((l) => l.checkpoint!);
      const trailer = signExportTrailer(
        { ...lines.at(-1)!.trailer!.statement, digest: exportDigest(body), lines: copy.length, first: checkpointRef(resealed[0]!), last: checkpointRef(resealed.at(-1)!), head: checkpointRef(resealed.at(-1)!) },
        key,
      );
      const forged = [...copy, { kind: "trailer", trailer }];

      // the control: offline, with only the pinned keys, the re-sealed history verifies
      const without = await offlineWith("resealed", forged);
      expect(without.audited.evidence.findings).toEqual([]);
      expect(without.ran.code).toBe(0);

      const { ran, audited } = await offlineWith("resealed-head", forged, "--head", w.notaryHeadLog);
      expect(ran.code).toBe(1);
      const sealedIn = lines.find((l) => l.kind === "checkpoint" && l.checkpoint!.statement.fromSeq <= finished.seq && l.checkpoint!.statement.toSeq >= finished.seq)!.checkpoint!.statement.index;
      expect(audited.evidence.findings[0]).toMatchObject({ kind: "checkpoint_resealed", checkpoint: sealedIn });
      expect(audited.evidence.findings[0]!.detail).toMatch(/Merkle root/);
      expect(new Set(kinds(audited))).toEqual(new Set(["checkpoint_resealed"]));
    });
  });

  describe("online: a tampered copy restored into the stream", () => {
    const restore = async (copy: readonly ExportLine[]) => {
      await w.stopServices();
      await w.bus.jsm.streams.delete(STREAM_CALLS);
      await ensureTopology(w.bus);
      for (const l of copy) if (l.kind === "message") await w.bus.js.publish(l.subject!, new TextEncoder().encode(l.data!));
    };
    const online = async () => {
      const ran = await runWarden(w.nats.home.dir, "audit", "--verify", "--json", "--projector-wait", "1ms", "--notary-wait", "1ms");
      return { ran, audited: JSON.parse(ran.out) as Audited };
    };

    it("finds one event's args changed", async () => {
      const { copy, seq } = argsChanged(lines);
      await restore(copy);
      const { ran, audited } = await online();
      expect(ran.code).toBe(1);
      expect(audited.evidence.findings).toContainEqual(expect.objectContaining({ kind: "event_altered", seq, callId: searchCallId }));
    });

    it("finds one event removed", async () => {
      const checked = eventsOf(lines).find((e) => e.event.callId === grantedCallId && e.event.type === "ToolPolicyChecked")!;
      await restore(lines.filter((_, i) => i !== checked.i));
      const { ran, audited } = await online();
      expect(ran.code).toBe(1);
      expect(audited.evidence.findings).toContainEqual(expect.objectContaining({ kind: "event_removed", seq: checked.seq }));
    });

    it("finds two events swapped", async () => {
      const evs = eventsOf(lines);
      const a = evs.find((e) => e.event.callId === grantedCallId && e.event.type === "ApprovalRequested")!;
      const b = evs.find((e) => e.event.callId === grantedCallId && e.event.type === "ApprovalGranted")!;
      const copy = [...lines];
      copy[a.i] = lines[b.i]!;
      copy[b.i] = lines[a.i]!;
      await restore(copy);
      const { ran, audited } = await online();
      expect(ran.code).toBe(1);
      expect(audited.evidence.findings).toContainEqual(expect.objectContaining({ kind: "event_reordered", callId: grantedCallId }));
    });

    it("finds an inserted event", async () => {
      const { line, insertAt, callId } = forgedGrant();
      await restore([...lines.slice(0, insertAt), line, ...lines.slice(insertAt)]);
      const { ran, audited } = await online();
      expect(ran.code).toBe(1);
      expect(audited.evidence.findings).toContainEqual(expect.objectContaining({ kind: "event_inserted", callId }));
    });
  });
});
