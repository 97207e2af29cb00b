import { describe, expect, it } from "vitest";
import { newId, type EventType } from "@warden/contracts/events";
import { CALLS_SUBJECT_ROOT, STREAM_CALLS, callEventSubject } from "@warden/contracts/subjects";
import { useTestNats } from "@warden/testing";
import { batchDirectGets } from "./batch-direct-get.js";
import { followCallStream, readCallStream, type StreamRecord } from "./call-stream-reads.js";
import { appenderOf } from "./js-appender.js";
import { createLogger } from "./logger.js";

// run on every release CI names (the compat project runs it on 2.9.10 too): ≥ 2.11 reads in batches, older one message per get
describe("reading the call stream by direct gets", () => {
  const t = useTestNats();
  const enc = new TextEncoder();

  const append = async (domain: string, callId: string, type: EventType) =>
    (await appenderOf(t.bus.nc).append(callEventSubject(domain, callId, type), enc.encode(JSON.stringify({ type })), { msgId: newId(), timeoutMs: 5_000 })).seq;

  /** Direct get requests the server receives while `fn` runs. */
  const countingGets = async <T>(fn: () => Promise<T>): Promise<{ value: T; gets: number }> => {
    let gets = 0;
    const sub = t.bus.nc.subscribe(`$JS.API.DIRECT.GET.${STREAM_CALLS}`, { callback: () => void gets++ });
    await t.bus.nc.flush();
    try {
      const value = await fn();
      await t.bus.nc.flush();
      return { value, gets };
    } finally {
      sub.unsubscribe();
    }
  };

  it("reads a range in order, bounded on both ends, and stops when asked", async () => {
    const domain = `reads${Date.now()}`;
    const seqs: number[] = [];
    for (let i = 0; i < 700; i++) seqs.push(await append(domain, `c${i}`, "ToolArgsValidated"));
    // more than two batches, and other calls' events in between (every test's calls share the stream)
    const expected = seqs;

    const whole: number[] = [];
    const { value: summary, gets } = await countingGets(() => readCallStream(t.bus, { fromSeq: seqs[0]!, toSeq: seqs[699]! }, (r) => void whole.push(r.seq)));
    expect(whole).toEqual(expected);
    expect(summary).toEqual({ toSeq: seqs[699], read: expected.length });
    // a single server of 2.11 or later answers batches: it is asked a few times, not once per message
    const [major, minor] = (t.bus.nc.info?.version ?? "0.0").split(".").map(Number);
    const batched = major! > 2 || (major === 2 && minor! >= 11);
    expect(batchDirectGets(t.bus)).toBe(batched);
    if (batched) expect(gets).toBeLessThanOrEqual(5);
    else expect(gets).toBeGreaterThanOrEqual(expected.length);

    const bounded: number[] = [];
    await readCallStream(t.bus, { fromSeq: seqs[5]!, toSeq: seqs[400]! }, (r) => void bounded.push(r.seq));
    expect(bounded).toEqual(expected.filter((s) => s >= seqs[5]! && s <= seqs[400]!));

    const stopped: StreamRecord[] = [];
    const early = await readCallStream(t.bus, { fromSeq: seqs[0]! }, (r) => {
      stopped.push(r);
      return stopped.length < 3;
    });
    expect(stopped.map((r) => r.seq)).toEqual(expected.slice(0, 3));
    expect(early.read).toBe(3);
    const body = JSON.parse(new TextDecoder().decode(stopped[0]!.data)) as { type: string };
    expect(body.type).toBe("ToolArgsValidated");
    expect(stopped[0]!.subject).toBe(callEventSubject(domain, "c0", "ToolArgsValidated"));
    expect(Math.abs(stopped[0]!.storedAtMs - Date.now())).toBeLessThan(60_000);
  });

  it("reads only a filter's messages, across more than a batch of others, up to the sequence asked", async () => {
    const domain = `filtered${Date.now()}`;
    const callId = newId();
    const mine: number[] = [];
    mine.push(await append(domain, callId, "ToolArgsValidated"));
    for (let i = 0; i < 300; i++) await append(domain, newId(), "ToolArgsValidated");
    mine.push(await append(domain, callId, "ToolPolicyChecked"));
    const toSeq = await append(domain, newId(), "ToolArgsValidated");
    // stored after the read's end: not read
    await append(domain, callId, "ToolCallStarted");

    const got: string[] = [];
    const summary = await readCallStream(t.bus, { filter: `${CALLS_SUBJECT_ROOT}.*.${callId}.>`, fromSeq: 1, toSeq }, (r) => void got.push(r.subject));
    expect(got).toEqual([callEventSubject(domain, callId, "ToolArgsValidated"), callEventSubject(domain, callId, "ToolPolicyChecked")]);
    expect(summary.read).toBe(2);

    const none: number[] = [];
    await readCallStream(t.bus, { filter: `${CALLS_SUBJECT_ROOT}.*.${newId()}.>`, fromSeq: 1, toSeq }, (r) => void none.push(r.seq));
    expect(none).toEqual([]);
  });

  it("follows the stream: hands over what is stored later, once each and in order", async () => {
    const domain = `follow${Date.now()}`;
    const seen: number[] = [];
    const first = await append(domain, newId(), "ToolArgsValidated");
    const follower = followCallStream(t.bus, { fromSeq: first, filter: `${CALLS_SUBJECT_ROOT}.${domain}.>`, pollMs: 50, log: createLogger("reads-test", "silent") }, (r) => void seen.push(r.seq));
    try {
      const later: number[] = [first];
      for (let i = 0; i < 40; i++) later.push(await append(domain, newId(), "ToolArgsValidated"));
      await follower.catchUp();
      await follower.catchUp();
      expect(seen).toEqual(later);
    } finally {
      await follower.stop();
    }
  });
});
