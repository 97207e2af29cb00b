import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { appendEvent, CallStreamTap, requestRpc, silentLogger, type Bus } from "@warden/bus";
import { NOTARY_EXPORT_SEAL_SUBJECT, STREAM_CALLS } from "@warden/contracts/subjects";
import { checkExportTrailerSignature, checkpointHash, ExportTrailerSchema, parseHeadLog, pinKeys, verifyEvidence, type StoredMessage } from "@warden/evidence";
import { eventually, startTestNats, SYNTHETIC_APPROVER_KEY, syntheticCall, useTestNats } from "@warden/testing";
import { generateSigningKeyPair } from "@warden/service-kit";
import { readCheckpoints, type StoredCheckpoint } from "./last-checkpoint.js";
import { startNotaryService } from "./service.js";

const NOTARY = { kind: "service", name: "notary", role: "notary" } as const;

async function streamMessages(t: { readonly bus: Bus }): Promise<StoredMessage[]> {
  const info = await t.bus.jsm.streams.info(STREAM_CALLS);
  const out: StoredMessage[] = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
    const m = await t.bus.jsm.streams.getMessage(STREAM_CALLS, { seq });
    if (m !== null) out.push({ seq, subject: m.subject, data: m.data });
  }
  return out;
}

describe("the notary", () => {
  const t = useTestNats();
  const key = generateSigningKeyPair();
  /** The whole stream against the checkpoints, with the notary's key and the synthetic grants' key pinned. */
  const verifyStream = async (checkpoints: readonly StoredCheckpoint[]) =>
    verifyEvidence({
      messages: await streamMessages(t),
      checkpoints: checkpoints.map((c) => c.checkpoint),
      notaryKeys: [key.publicKeyDerBase64],
      approverKeys: [SYNTHETIC_APPROVER_KEY.publicKeyDerBase64],
      complete: true,
    });

  it("seals every message of the call stream in signed, chained checkpoints that verify against its pinned key", async () => {
    const bus = await t.nats.connectAs(NOTARY);
    const notary = await startNotaryService({ bus, log: silentLogger(), signingKeyPem: key.privateKeyPem, maxMessages: 7, intervalMs: 50 });
    try {
      for (const [i, outcome] of (["succeeded", "failed", "policy_denied", "rejected"] as const).entries()) {
        for (const e of syntheticCall({ callId: `n${i}`, outcome })) expect((await appendEvent(t.bus, e)).status).toBe("written");
      }
      const last = (await t.bus.jsm.streams.info(STREAM_CALLS)).state.last_seq;
      await eventually(() => expect(notary.sealedThrough()).toBe(last));
      const { checkpoints, invalid } = await readCheckpoints(t.bus);
      expect(invalid).toEqual([]);
      // at most 7 per checkpoint, contiguous, numbered from 0
      expect(checkpoints.length).toBeGreaterThanOrEqual(Math.ceil(last / 7));
      expect(checkpoints.map((c) => c.checkpoint.statement.index)).toEqual(checkpoints.map((_, i) => i));
      expect(checkpoints.every((c) => c.checkpoint.statement.count <= 7)).toBe(true);
      const report = await verifyStream(checkpoints);
      expect(report.findings).toEqual([]);
      expect(report.sealedThrough).toBe(last);
      expect(report.unsealed).toEqual([]);
    } finally {
      await notary.stop();
    }
  });

  it("continues the chain where the last checkpoint ended after a restart, and a second copy never forks it", async () => {
    const bus1 = await t.nats.connectAs(NOTARY);
    const bus2 = await t.nats.connectAs(NOTARY);
    const a = await startNotaryService({ bus: bus1, log: silentLogger(), signingKeyPem: key.privateKeyPem, maxMessages: 3, intervalMs: 30 });
    const b = await startNotaryService({ bus: bus2, log: silentLogger(), signingKeyPem: key.privateKeyPem, maxMessages: 3, intervalMs: 30 });
    try {
      for (const e of syntheticCall({ callId: "restart1", outcome: "succeeded" })) await appendEvent(t.bus, e);
      for (const e of syntheticCall({ callId: "restart2", outcome: "approved" })) await appendEvent(t.bus, e);
      const last = (await t.bus.jsm.streams.info(STREAM_CALLS)).state.last_seq;
      await eventually(() => expect(Math.max(a.sealedThrough(), b.sealedThrough())).toBe(last), 15_000);
    } finally {
      await a.stop();
      await b.stop();
    }
    const { checkpoints } = await readCheckpoints(t.bus);
    expect((await verifyStream(checkpoints)).findings).toEqual([]);
  });

  it("appends every checkpoint it writes to its head log, and signs an export's trailer with the chain's head", async () => {
    const dir = mkdtempSync(join(tmpdir(), "warden-notary-heads-"));
    const headLogFile = join(dir, "heads.jsonl");
    const notary = await startNotaryService({ bus: await t.nats.connectAs(NOTARY), log: silentLogger(), signingKeyPem: key.privateKeyPem, maxMessages: 4, intervalMs: 50, headLogFile });
    try {
      for (const e of syntheticCall({ callId: "heads1", outcome: "succeeded" })) await appendEvent(t.bus, e);
      const last = (await t.bus.jsm.streams.info(STREAM_CALLS)).state.last_seq;
      await eventually(() => expect(notary.sealedThrough()).toBe(last));
      const { checkpoints } = await readCheckpoints(t.bus);
      const logged = parseHeadLog(readFileSync(headLogFile, "utf8"));
      // the earlier tests' copies wrote the chain's start on this server: this copy logged the rest
      const written = checkpoints.slice(-logged.checkpoints.length);
      expect(logged.invalidLines).toEqual([]);
      expect(logged.checkpoints.length).toBeGreaterThan(0);
      // exactly what this copy wrote on the bus, in order
      expect(logged.checkpoints.map((c) => checkpointHash(c.statement))).toEqual(written.map((c) => checkpointHash(c.checkpoint.statement)));
      expect(logged.checkpoints.at(-1)!.statement.toSeq).toBe(last);

      const auditor = await t.nats.connectAs({ kind: "auditor", name: "auditor" });
      const digest = `sha256:${"a".repeat(64)}`;
      const reply = await requestRpc(auditor, NOTARY_EXPORT_SEAL_SUBJECT, { v: 1, digest, lines: 3, first: null, last: null });
      expect(reply.ok).toBe(true);
      const trailer = ExportTrailerSchema.parse(reply.ok ? reply.value : undefined);
      expect(trailer.statement).toMatchObject({ digest, lines: 3, head: { index: checkpoints.at(-1)!.checkpoint.statement.index, toSeq: last } });
      expect(checkExportTrailerSignature(trailer, pinKeys([key.publicKeyDerBase64]))).toBe("valid");
    } finally {
      await notary.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("seals what a reader in its process was delivered without reading it again, and reads itself what that reader does not hold", async () => {
    const own = await startTestNats();
    const taken: number[] = [];
    class CountingTap extends CallStreamTap {
      override take(fromSeq: number) {
        const out = super.take(fromSeq);
        taken.push(...out.map((m) => m.seq));
        return out;
      }
    }
    const tap = new CountingTap();
    try {
      const admin = await own.bus("tap-admin");
      const appendCalls = async (ids: readonly string[]) => {
        for (const callId of ids) for (const e of syntheticCall({ callId, outcome: "succeeded" })) expect((await appendEvent(admin, e)).status).toBe("written");
      };
      await appendCalls(["tap1", "tap2", "tap3"]);
      // the first ten as the projector would offer them; the rest it has not applied yet
      tap.offer((await streamMessages({ bus: admin })).slice(0, 10));
      const notary = await startNotaryService({ bus: await own.connectAs(NOTARY), log: silentLogger(), signingKeyPem: key.privateKeyPem, maxMessages: 6, intervalMs: 30, tap });
      try {
        const last = (await admin.jsm.streams.info(STREAM_CALLS)).state.last_seq;
        await eventually(() => expect(notary.sealedThrough()).toBe(last), 15_000);
        // the ten from the tap, the other five read from the stream
        expect(taken).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
        expect(last).toBe(15);
      } finally {
        await notary.stop();
      }
      const report = await verifyEvidence({
        messages: await streamMessages({ bus: admin }),
        checkpoints: (await readCheckpoints(admin)).checkpoints.map((c) => c.checkpoint),
        notaryKeys: [key.publicKeyDerBase64],
        approverKeys: [SYNTHETIC_APPROVER_KEY.publicKeyDerBase64],
        complete: true,
      });
      expect(report.findings).toEqual([]);
    } finally {
      await own.stop();
    }
  }, 60_000);

  it("after the server lost its store, goes on from its head log so verification names the lost checkpoints; without the log the loss verifies clean", async () => {
    const own = await startTestNats();
    const dir = mkdtempSync(join(tmpdir(), "warden-notary-lost-"));
    const verifyOwn = async (admin: Bus) =>
      verifyEvidence({
        messages: await streamMessages({ bus: admin }),
        checkpoints: (await readCheckpoints(admin)).checkpoints.map((c) => c.checkpoint),
        notaryKeys: [key.publicKeyDerBase64],
        approverKeys: [SYNTHETIC_APPROVER_KEY.publicKeyDerBase64],
        complete: true,
      });
    const sealAll = async (admin: Bus, callIds: readonly string[], headLogFile?: string) => {
      const notary = await startNotaryService({ bus: await own.connectAs(NOTARY), log: silentLogger(), signingKeyPem: key.privateKeyPem, maxMessages: 4, intervalMs: 30, ...(headLogFile ? { headLogFile } : {}) });
      try {
        for (const callId of callIds) for (const e of syntheticCall({ callId, outcome: "succeeded" })) await appendEvent(admin, e);
        const last = (await admin.jsm.streams.info(STREAM_CALLS)).state.last_seq;
        await eventually(() => expect(notary.sealedThrough()).toBe(last), 15_000);
      } finally {
        await notary.stop();
      }
    };
    try {
      for (const headLogFile of [undefined, join(dir, "heads.jsonl")]) {
        const admin = await own.bus(`admin-${headLogFile === undefined ? "nolog" : "log"}`);
        await sealAll(admin, ["lost1", "lost2"], headLogFile);
        const before = (await readCheckpoints(admin)).checkpoints.at(-1)!.checkpoint.statement;
        await own.crashAndRestart(100, { loseStore: true });
        const fresh = await own.bus(`admin-fresh-${headLogFile === undefined ? "nolog" : "log"}`);
        await sealAll(fresh, ["after1"], headLogFile);
        const findings = (await verifyOwn(fresh)).findings;
        if (headLogFile === undefined) {
          // the control: a notary that keeps nothing outside the bus starts a new chain, and the loss verifies clean
          expect(findings).toEqual([]);
        } else {
          expect(findings).toContainEqual(expect.objectContaining({ kind: "checkpoint_chain_broken", detail: `the first checkpoint is #${before.index + 1}: checkpoints #0–#${before.index} are missing` }));
        }
      }
    } finally {
      await own.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
