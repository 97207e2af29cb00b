import { spawn, type ChildProcess } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { AckPolicy, DeliverPolicy } from "@nats-io/jetstream";
import { appendEvent, CallStreamTap, ensureTopology, kvGetJson, loadBusConfig, silentLogger, unlessNotFound, type Bus } from "@warden/bus";
import { type WardenEvent } from "@warden/contracts/events";
import {
  BUCKET_APPROVALS,
  BUCKET_BUDGETS,
  BUCKET_CALLS,
  CALLS_SUBJECTS,
  callEventSubject,
  consumerName,
  READ_MODEL_BUCKETS,
  runBudgetKey,
  STREAM_CALLS,
  STREAM_DLQ,
} from "@warden/contracts/subjects";
import { ApprovalInboxRecordSchema } from "@warden/contracts/read-models";
import { CallModelSchema } from "@warden/projections";
import { eventually, startTestNats, SYNTHETIC_OUTCOMES, syntheticCall, type TestNats } from "@warden/testing";
import { openCursor } from "./cursor.js";
import { digestsOf, readLiveModels } from "./live-models.js";
import { rebuildReadModels } from "./rebuild.js";
import { replayStream } from "./replay.js";
import { PROJECTOR_STAGE, startProjectorService, type ProjectorService } from "./service.js";

const MAIN = resolve(dirname(fileURLToPath(import.meta.url)), "../dist/main.js");

/** A mix of every outcome over a few runs, principals and tools; ids unique per call to `mix`. */
function mix(calls: number, tag: string): WardenEvent[] {
  const out: WardenEvent[] = [];
  for (let i = 0; i < calls; i++) {
    const outcome = SYNTHETIC_OUTCOMES[i % SYNTHETIC_OUTCOMES.length]!;
    const approval = outcome === "approved" || outcome === "approval_denied" || outcome === "expired";
    out.push(
      ...syntheticCall({
        callId: `${tag}-${i}`,
        outcome,
        runId: `${tag}-run${i % 7}`,
        principal: `p${i % 3}`,
        tool: approval ? "customer.message" : i % 2 === 0 ? "kb.search" : "ticket.fill",
        at: new Date(Date.UTC(2030, 0, 1, 0, 0, 0, i * 10)),
      }),
    );
  }
  return out;
}

async function appendAll(bus: Bus, events: readonly WardenEvent[]): Promise<void> {
  for (let i = 0; i < events.length; i += 64) {
    const r = await Promise.all(events.slice(i, i + 64).map((e) => appendEvent(bus, e)));
    expect(r.every((x) => x.status === "written")).toBe(true);
  }
}

/** The reasons of the projector's dead letters, by the stream sequence they name. */
async function lettersBySeq(bus: Bus): Promise<Map<number, string[]>> {
  const info = await bus.jsm.streams.info(STREAM_DLQ);
  const out = new Map<number, string[]>();
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && seq > 0; seq++) {
    const m = await bus.jsm.streams.getMessage(STREAM_DLQ, { seq }).catch(() => null);
    if (m?.header?.get("Warden-Dlq-Stage") !== consumerName(PROJECTOR_STAGE)) continue;
    const at = Number(m.header.get("Warden-Dlq-Seq"));
    out.set(at, [...(out.get(at) ?? []), m.header.get("Warden-Dlq-Reason")]);
  }
  return out;
}

/**
 * The bus with a fault before every write to a read model's bucket: `beforeWrite` throws to make
 * the write fail, as a lost connection or a dead process would. The cursor's bucket is untouched.
 */
function faultModelWrites(bus: Bus, beforeWrite: () => void): Bus {
  const kvm = bus.kvm;
  const open = kvm.open.bind(kvm);
  kvm.open = async (name, opts) => {
    const kv = await open(name, opts);
    if (!(READ_MODEL_BUCKETS as readonly string[]).includes(name)) return kv;
    const create = kv.create.bind(kv);
    const update = kv.update.bind(kv);
    kv.create = async (...args) => {
      beforeWrite();
      return create(...args);
    };
    kv.update = async (...args) => {
      beforeWrite();
      return update(...args);
    };
    return kv;
  };
  return bus;
}

async function lastSeq(bus: Bus): Promise<number> {
  return (await bus.jsm.streams.info(STREAM_CALLS)).state.last_seq;
}

async function caughtUp(bus: Bus, timeoutMs = 20_000): Promise<number> {
  // every read is retried: on a loaded machine one JetStream request may time out (after a store loss, while it settles)
  const cursor = await eventually(() => openCursor(bus), timeoutMs);
  const target = await eventually(() => lastSeq(bus), timeoutMs);
  await eventually(async () => expect(await cursor.read()).toBe(target), timeoutMs);
  return target;
}

/** The live models' digests must equal those of a replay of the whole stream. */
async function expectLiveEqualsReplay(bus: Bus): Promise<void> {
  const live = await readLiveModels(bus);
  expect(live.consistent).toBe(true);
  const replay = await replayStream(bus, { toSeq: live.cursor });
  expect(replay.toSeq).toBe(live.cursor);
  expect(digestsOf(live.maps)).toEqual(digestsOf(replay.maps));
}

describe("the projector", () => {
  let nats: TestNats;
  let bus: Bus;
  const running: ProjectorService[] = [];
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    nats = await startTestNats();
    bus = await nats.bus("projector-test");
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((p) => p.stop()));
    for (const c of children.splice(0)) c.kill("SIGKILL");
  });
  afterAll(async () => nats.stop());

  // the admin connection appends the synthetic history and reads; every projector runs as the projector identity
  const PROJECTOR = { kind: "service", name: "projector", role: "projector" } as const;
  const start = async (o: Partial<Parameters<typeof startProjectorService>[0]> = {}, beforeModelWrite?: () => void) => {
    const own = await nats.connectAs(PROJECTOR);
    const p = await startProjectorService({ bus: beforeModelWrite ? faultModelWrites(own, beforeModelWrite) : own, log: silentLogger(), ackWaitMs: 1_000, leaseTtlMs: 500, ...o });
    running.push(p);
    return p;
  };

  it("keeps call state, the approval inbox and run budgets from the stream, equal to a replay", async () => {
    await appendAll(bus, mix(90, "a"));
    await start();
    await caughtUp(bus);
    const calls = await bus.kvm.open(BUCKET_CALLS);
    const crashed = await kvGetJson(calls, "a-7", CallModelSchema);
    expect(crashed?.value).toMatchObject({ status: "outcome_unknown", violations: [] });
    const approved = await kvGetJson(calls, "a-4", CallModelSchema);
    expect(approved?.value).toMatchObject({ status: "succeeded", approval: { outcome: "granted", approver: "alice" } });
    const inbox = await kvGetJson(await bus.kvm.open(BUCKET_APPROVALS), "a-5-a", ApprovalInboxRecordSchema);
    expect(inbox?.value).toMatchObject({ status: "denied", decidedBy: "alice", callId: "a-5" });
    const budget = await kvGetJson(await bus.kvm.open(BUCKET_BUDGETS), runBudgetKey("a-run0"), (await import("@warden/contracts/read-models")).BudgetModelSchema);
    expect(budget?.value.counts.requested).toBe(13);
    await expectLiveEqualsReplay(bus);
  });

  it("catches up after a restart without losing or double counting, whatever it had written when it died", async () => {
    let writes = 0;
    const crashAt = 40;
    // from the 40th model write on, this copy writes nothing more, as if its process had died
    const crash = () => {
      if (++writes >= crashAt) throw new Error("simulated crash between model writes");
    };
    // the crash makes the batch fail; stop it right there, as a dead process would
    const first = await start({ batchSize: 50 }, crash);
    await appendAll(bus, mix(60, "b"));
    await eventually(() => expect(writes).toBeGreaterThanOrEqual(crashAt));
    const cursorAtCrash = await (await openCursor(bus)).read();
    await first.stop();
    expect(cursorAtCrash).toBeLessThan(await lastSeq(bus));
    await start({ batchSize: 50 });
    await caughtUp(bus);
    await expectLiveEqualsReplay(bus);
  });

  it("never corrupts a model when two copies project at once", async () => {
    await start({ batchSize: 16, lease: false });
    await start({ batchSize: 16, lease: false });
    await appendAll(bus, mix(60, "c"));
    await caughtUp(bus);
    await expectLiveEqualsReplay(bus);
  });

  it("lets one copy project while another stands by, and hands over when it stops", async () => {
    const a = await start({ leaseTtlMs: 500 });
    const b = await start({ leaseTtlMs: 500 });
    await eventually(() => expect([a.holdsLease(), b.holdsLease()].sort()).toEqual([false, true]));
    const [active, standby] = a.holdsLease() ? [a, b] : [b, a];
    await appendAll(bus, mix(20, "c2"));
    await caughtUp(bus);
    expect(standby.appliedTo()).toBe(0);
    await active.stop();
    await eventually(() => expect(standby.holdsLease()).toBe(true));
    await appendAll(bus, mix(20, "c3"));
    const target = await caughtUp(bus);
    // the copy counts a run applied once its cursor write is acknowledged, which may come a moment
    // after another reader already sees the cursor there
    await eventually(() => expect(standby.appliedTo()).toBe(target));
    await expectLiveEqualsReplay(bus);
  });

  it("survives being killed mid-stream as a process and restarted", async () => {
    const env = { ...process.env, NATS_URL: nats.url, NATS_CREDS: await nats.credsOf(PROJECTOR), LOG_LEVEL: "silent", WARDEN_PROJECTOR_BATCH: "20", WARDEN_PROJECTOR_ACK_WAIT_MS: "1000", WARDEN_PROJECTOR_LEASE_MS: "500" };
    const spawnProjector = () => {
      const c = spawn(process.execPath, [MAIN], { env, stdio: "ignore" });
      children.push(c);
      return c;
    };
    const cursor = await openCursor(bus);
    const before = await cursor.read();
    const proc = spawnProjector();
    const appending = appendAll(bus, mix(150, "d"));
    await eventually(async () => expect(await cursor.read()).toBeGreaterThan(before + 100));
    proc.kill("SIGKILL");
    await appending;
    spawnProjector();
    await caughtUp(bus, 30_000);
    await expectLiveEqualsReplay(bus);
  });

  it("leaves an invalid message out of every model and still moves past it", async () => {
    await start();
    await bus.js.publish(callEventSubject("kb", "poison-1", "ToolArgsValidated"), new TextEncoder().encode("not json"));
    await appendAll(bus, mix(3, "e"));
    await caughtUp(bus);
    expect(await kvGetJson(await bus.kvm.open(BUCKET_CALLS), "poison-1", CallModelSchema)).toBeUndefined();
    expect((await kvGetJson(await bus.kvm.open(BUCKET_CALLS), "e-2", CallModelSchema))?.value.status).toBe("rejected");
    await expectLiveEqualsReplay(bus);
  });

  it("moves past poison of every kind, each dead-lettered once with its code, although its batch is tried again", async () => {
    const [request] = syntheticCall({ callId: "p-deep", outcome: "succeeded" });
    const text = JSON.stringify(request);
    const enc = (t: string) => new TextEncoder().encode(t);
    // "é" is 0xc3 0xa9 in UTF-8; 0xff 0xa9 is not UTF-8 at all
    const notUtf8 = enc(text.replace('"q-p-deep"', '"q-é"'));
    notUtf8[notUtf8.indexOf(0xc3)] = 0xff;
    const other = syntheticCall({ callId: "p-other", outcome: "succeeded" })[1]!;
    const poison: [string, string, Uint8Array][] = [
      ["TOO_DEEP", callEventSubject("kb", "p-deep", "ToolCallRequested", "bot"), enc(text.replace('{"query":"q-p-deep"}', `${"[".repeat(50_000)}${"]".repeat(50_000)}`))],
      ["NOT_UTF8", callEventSubject("kb", "p-utf8", "ToolCallRequested", "bot"), notUtf8],
      ["SCHEMA_INVALID", callEventSubject("kb", "p-schema", "ToolArgsValidated"), enc(JSON.stringify({ ...other, callId: "p-schema", v: 9 }))],
      ["SUBJECT_MISMATCH", callEventSubject("kb", "p-mismatch", "ToolArgsValidated"), enc(JSON.stringify(other))],
    ];
    const seqs = new Map<string, number>();
    for (const [code, subject, data] of poison) seqs.set(code, (await bus.js.publish(subject, data)).seq);
    await appendAll(bus, mix(4, "g"));
    // the first model writes fail: the whole batch, poison included, is tried again
    let failures = 0;
    await start({}, () => {
      if (failures < 3) {
        failures++;
        throw new Error("simulated model write failure");
      }
    });
    await caughtUp(bus);
    expect(failures).toBe(3);
    const calls = await bus.kvm.open(BUCKET_CALLS);
    for (const id of ["p-deep", "p-utf8", "p-schema", "p-mismatch"]) expect(await kvGetJson(calls, id, CallModelSchema)).toBeUndefined();
    expect((await kvGetJson(calls, "g-0", CallModelSchema))?.value.status).toBe("succeeded");
    const letters = await lettersBySeq(bus);
    for (const [code, seq] of seqs) expect(letters.get(seq), code).toEqual([expect.stringMatching(new RegExp(`^${code}: `))]);
    await expectLiveEqualsReplay(bus);
  });

  it("rebuilds every model into fresh buckets with the digests of the live ones", async () => {
    await start();
    await caughtUp(bus);
    const progress: number[] = [];
    // rebuilding creates fresh buckets: an operator's job (warden replay --rebuild runs as the admin)
    const r = await rebuildReadModels(bus, { write: true, suffix: "t1", onProgress: (p) => progress.push(p.read) });
    expect(r.matches).toBe(true);
    expect(r.toSeq).toBe(await lastSeq(bus));
    expect(r.buckets).toEqual({ calls: "warden_calls_t1", approvals: "warden_approvals_t1", budgets: "warden_budgets_t1" });
    const copy = await kvGetJson(await bus.kvm.open("warden_calls_t1"), "a-7", CallModelSchema);
    expect(copy?.value.status).toBe("outcome_unknown");
    // the projector's own identity writes its live models only: it may not rebuild into new buckets
    await expect(rebuildReadModels(await nats.connectAs(PROJECTOR), { write: true, suffix: "t2", toSeq: 1 })).rejects.toThrow(/Permissions Violation/);
    expect(await bus.jsm.streams.info("KV_warden_calls_t2").catch(() => undefined)).toBeUndefined();
    // a second rebuild into the same suffix starts from empty buckets
    const again = await rebuildReadModels(bus, { write: true, suffix: "t1" });
    expect(again.rebuilt).toEqual(r.rebuilt);
  });

  it("offers each run it applied, in stream order, to a reader in its process (the notary of warden up)", async () => {
    const tap = new CallStreamTap();
    const from = (await lastSeq(bus)) + 1;
    await start({ tap, batchSize: 16 });
    await appendAll(bus, mix(12, "tap"));
    const to = await caughtUp(bus);
    const stored = await bus.jsm.streams.getMessage(STREAM_CALLS, { seq: to });
    const offered = tap.take(from);
    expect(offered.map((m) => m.seq)).toEqual(Array.from({ length: to - from + 1 }, (_, i) => from + i));
    expect(offered.at(-1)?.subject).toBe(stored!.subject);
    expect(Buffer.from(offered.at(-1)!.data).equals(Buffer.from(stored!.data))).toBe(true);
  });

  it("settles each applied run with one ack; a durable made before (one ack per event) still works until the admin's topology makes it again from the cursor", async () => {
    const durable = consumerName(PROJECTOR_STAGE);
    const pendingAcks = async () => (await bus.jsm.consumers.info(STREAM_CALLS, durable)).num_ack_pending;
    await start();
    await appendAll(bus, mix(40, "k"));
    await caughtUp(bus);
    expect((await bus.jsm.consumers.info(STREAM_CALLS, durable)).config.ack_policy).toBe("all");
    await eventually(async () => expect(await pendingAcks()).toBe(0));
    await Promise.all(running.splice(0).map((p) => p.stop()));

    // as a release before this one made it: explicit acks, from the stream's start
    await bus.jsm.consumers.delete(STREAM_CALLS, durable);
    await bus.jsm.consumers.add(STREAM_CALLS, { durable_name: durable, filter_subject: CALLS_SUBJECTS, ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.All, max_deliver: -1, ack_wait: 1_000_000_000, max_ack_pending: 256 });
    await start();
    await appendAll(bus, mix(20, "k2"));
    const cursor = await caughtUp(bus);
    await eventually(async () => expect(await pendingAcks()).toBe(0));
    await Promise.all(running.splice(0).map((p) => p.stop()));

    await ensureTopology(bus);
    expect(await unlessNotFound(bus.jsm.consumers.info(STREAM_CALLS, durable))).toBeUndefined();
    await appendAll(bus, mix(20, "k3"));
    await start();
    const made = await bus.jsm.consumers.info(STREAM_CALLS, durable);
    expect(made.config).toMatchObject({ ack_policy: "all", deliver_policy: "by_start_sequence", opt_start_seq: cursor + 1 });
    await caughtUp(bus);
    await eventually(async () => expect(await pendingAcks()).toBe(0));
    // nothing before the cursor applied twice, nothing after it skipped
    await expectLiveEqualsReplay(bus);
  });
});

describe("retention", () => {
  it("applies WARDEN_STREAM_MAX_AGE_S and WARDEN_STREAM_MAX_BYTES to the call stream", async () => {
    const nats = await startTestNats();
    try {
      const { connectBus, ensureTopology } = await import("@warden/bus");
      // the admin provisions the stream, with the retention it is configured with
      const creds = await nats.credsOf({ kind: "admin", name: "admin" });
      const bus = await connectBus(loadBusConfig({ NATS_URL: nats.url, NATS_CREDS: creds, WARDEN_STREAM_MAX_AGE_S: "86400", WARDEN_STREAM_MAX_BYTES: "1048576" }), "retention-test");
      await ensureTopology(bus);
      const c = (await bus.jsm.streams.info(STREAM_CALLS)).config;
      expect(c.max_age).toBe(86_400 * 1e9);
      expect(c.max_bytes).toBe(1_048_576);
      await bus.close();
    } finally {
      await nats.stop();
    }
  });
});

describe("a server back on a lost store", () => {
  it("the projector projects the new stream by itself: its cursor, lease and model caches named the lost buckets", async () => {
    const nats = await startTestNats();
    try {
      const admin = await nats.bus("store-loss-admin");
      const own = await nats.connectAs({ kind: "service", name: "projector", role: "projector" });
      const p = await startProjectorService({ bus: own, log: silentLogger(), ackWaitMs: 1_000, leaseTtlMs: 500 });
      try {
        await appendAll(admin, mix(30, "l"));
        const before = await caughtUp(admin);
        // the store is lost: every stream and bucket gone, then provisioned again as `warden up` does
        const { ensureTopology } = await import("@warden/bus");
        for await (const name of admin.jsm.streams.names()) await admin.jsm.streams.delete(name);
        await ensureTopology(admin);
        // the same runs and calls go on: keys this copy cached with sequences of the lost stream
        await appendAll(admin, mix(10, "l"));
        const after = await caughtUp(admin, 30_000);
        expect(after).toBeLessThan(before);
        await eventually(() => expectLiveEqualsReplay(admin), 15_000);
        expect(p.holdsLease()).toBe(true);
        await eventually(() => expect(p.appliedTo()).toBe(after));
      } finally {
        await p.stop();
      }
    } finally {
      await nats.stop();
    }
  }, 120_000);
});
