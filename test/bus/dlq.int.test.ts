import { describe, expect, it } from "vitest";
import { newId } from "@warden/contracts/events";
import { STREAM_CALLS, STREAM_DLQ } from "@warden/contracts/subjects";
import { sha256Hex } from "@warden/contracts/json";
import { useTestNats } from "@warden/testing";
import { copyToDlq, decodeJson, DLQ_INLINE_LIMIT } from "@warden/bus";

describe("copyToDlq", () => {
  const t = useTestNats();

  const lettersFor = async (subject: string) => {
    const info = await t.bus.jsm.streams.info(STREAM_DLQ);
    const out = [];
    for (let seq = info.state.first_seq; seq <= info.state.last_seq && seq > 0; seq++) {
      const m = await t.bus.jsm.streams.getMessage(STREAM_DLQ, { seq }).catch(() => null);
      if (m?.header.get("Warden-Dlq-Subject") === subject) out.push(m);
    }
    return out;
  };

  it("stores a large payload as a reference (stream, seq, subject, sha256, size), not a copy", async () => {
    const subject = `warden.call.dlq.${newId()}.ToolCallRequested.p1`;
    const data = new TextEncoder().encode(JSON.stringify({ args: "x".repeat(100_000) }));
    expect(await copyToDlq(t.bus, { stage: "t-dlq", reason: "too big to process", subject, streamSeq: 41, data })).toMatchObject({ payload: "reference" });
    const [letter, ...more] = await lettersFor(subject);
    expect(more).toEqual([]);
    expect(letter!.data.length).toBeLessThan(1_000);
    expect(letter!.header.get("Warden-Dlq-Payload")).toBe("reference");
    expect(letter!.header.get("Warden-Dlq-Sha256")).toBe(sha256Hex(data));
    expect(letter!.header.get("Warden-Dlq-Bytes")).toBe(String(data.length));
    expect(decodeJson(letter!.data)).toEqual({
      ok: true,
      value: { ref: { stream: STREAM_CALLS, seq: 41, subject, sha256: sha256Hex(data), bytes: data.length } },
    });
  });

  it("copies a small payload whole", async () => {
    const subject = `warden.call.dlq.${newId()}.ToolCallRequested.p1`;
    const data = new TextEncoder().encode("{not json");
    expect(data.length).toBeLessThanOrEqual(DLQ_INLINE_LIMIT);
    await copyToDlq(t.bus, { stage: "t-dlq", reason: "malformed", subject, streamSeq: 42, data });
    const [letter] = await lettersFor(subject);
    expect(letter!.header.get("Warden-Dlq-Payload")).toBe("copy");
    expect(new TextDecoder().decode(letter!.data)).toBe("{not json");
  });

  it("records a message once however often it is dead-lettered, by one stage's retries or by several stages (regression: a copy per retry)", async () => {
    const subject = `warden.call.dlq.${newId()}.ToolPolicyChecked`;
    const data = new TextEncoder().encode("x".repeat(10_000));
    const first = await copyToDlq(t.bus, { stage: "t-dlq-a", reason: "poison", subject, streamSeq: 43, data });
    const again = await copyToDlq(t.bus, { stage: "t-dlq-a", reason: "poison", subject, streamSeq: 43, data });
    const other = await copyToDlq(t.bus, { stage: "t-dlq-b", reason: "poison", subject, streamSeq: 43, data });
    expect([first.duplicate, again.duplicate, other.duplicate]).toEqual([false, true, true]);
    expect(await lettersFor(subject)).toHaveLength(1);
    // another message of the same subject is its own letter
    await copyToDlq(t.bus, { stage: "t-dlq-a", reason: "poison", subject, streamSeq: 44, data });
    expect(await lettersFor(subject)).toHaveLength(2);
  });
});
