import { describe, expect, it } from "vitest";
import { newId } from "@warden/contracts/events";
import { callEventSubject } from "@warden/contracts/subjects";
import { useTestNats } from "@warden/testing";
import { appenderOf } from "./js-appender.js";
import { isNoAnswer, isPermissionViolation, isRevisionConflict } from "./nats-errors.js";

describe("the pipelined JetStream appender (one reply subscription per connection)", () => {
  const t = useTestNats();
  const enc = new TextEncoder();

  it("acks each of many concurrent appends with its own sequence, and a second write of a subject as the client's revision conflict", async () => {
    const a = appenderOf(t.bus.nc);
    expect(appenderOf(t.bus.nc)).toBe(a);
    const subjects = Array.from({ length: 300 }, () => callEventSubject("kb", newId(), "ToolArgsValidated"));
    const acks = await Promise.all(subjects.map((s) => a.append(s, enc.encode("{}"), { msgId: newId(), expectLastSubjectSequence: 0, timeoutMs: 5_000 })));
    expect(new Set(acks.map((k) => k.seq)).size).toBe(300);
    expect(acks.every((k) => k.duplicate === false && k.stream.length > 0)).toBe(true);
    const again = await a.append(subjects[0]!, enc.encode("{}"), { msgId: newId(), expectLastSubjectSequence: 0, timeoutMs: 5_000 }).catch((e: unknown) => e);
    expect(isRevisionConflict(again)).toBe(true);
    const msgId = newId();
    const first = await a.append(callEventSubject("kb", newId(), "ToolArgsValidated"), enc.encode("{}"), { msgId, timeoutMs: 5_000 });
    const dup = await a.append(callEventSubject("kb", newId(), "ToolArgsValidated"), enc.encode("{}"), { msgId, timeoutMs: 5_000 });
    expect(dup).toMatchObject({ duplicate: true, seq: first.seq });
  });

  it("fails an append nobody answers as no responders, one answered by nothing as a timeout, and goes on working", async () => {
    const a = appenderOf(t.bus.nc);
    const nobody = await a.append("appender.nobody", enc.encode("x"), { msgId: newId(), timeoutMs: 5_000 }).catch((e: unknown) => e);
    expect(isNoAnswer(nobody)).toBe(true);
    expect((nobody as Error).name).toBe("NoResponders");
    const silent = t.bus.nc.subscribe("appender.silent", { callback: () => undefined });
    try {
      const started = Date.now();
      const timedOut = await a.append("appender.silent", enc.encode("x"), { msgId: newId(), timeoutMs: 300 }).catch((e: unknown) => e);
      expect((timedOut as Error).name).toBe("TimeoutError");
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      silent.unsubscribe();
    }
    const ack = await a.append(callEventSubject("kb", newId(), "ToolArgsValidated"), enc.encode("{}"), { msgId: newId(), timeoutMs: 5_000 });
    expect(ack.seq).toBeGreaterThan(0);
  });

  it("fails an append the server refuses the identity as a permission violation at once, not after the timeout", async () => {
    const agent = await t.nats.connectAs({ kind: "agent", name: "appender-bot" });
    try {
      const started = Date.now();
      // an agent may write only its own requests, never a stage's event
      const refused = await appenderOf(agent.nc)
        .append(callEventSubject("kb", newId(), "ToolArgsValidated"), enc.encode("{}"), { msgId: newId(), timeoutMs: 10_000 })
        .catch((e: unknown) => e);
      expect(isPermissionViolation(refused)).toBe(true);
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await agent.close();
    }
  });
});
