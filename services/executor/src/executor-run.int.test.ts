import { describe, expect, it } from "vitest";
import { z } from "zod";
import { readEvent, silentLogger } from "@warden/bus";
import { newId } from "@warden/contracts/events";
import { OBJECT_STORE_ARTIFACTS, OUTPUT_PREVIEW_BYTES } from "@warden/contracts/subjects";
import { argsHash, sha256Hex } from "@warden/contracts/json";
import { append, policyChecked, waitForAck, waitForEvent } from "@warden/testing";
import { useRunningExecutor } from "../test-support/executor-harness.js";
import { defineTool } from "./define-tool.js";
import { readArtifact, readArtifactJson } from "./artifacts.js";

const ran: string[] = [];
const aborted: string[] = [];
const common = { version: "1.0.0", grade: "read" as const };

const echo = defineTool({
  ...common,
  name: "lab.echo",
  title: "Echo",
  description: "Use when you need the text you sent echoed back.",
  input: z.strictObject({ text: z.string() }),
  handler: ({ text }, ctx) => {
    ran.push(ctx.callId);
    return { text, principal: ctx.principal, mode: ctx.mode };
  },
});
const fail = defineTool({
  ...common,
  name: "lab.fail",
  title: "Fail",
  description: "Use when you want to see how a failing tool is reported.",
  input: z.strictObject({}),
  handler: () => {
    throw new Error("the lab exploded");
  },
});
const slow = defineTool({
  ...common,
  name: "lab.slow",
  title: "Slow",
  description: "Use when you want to see how a tool that hangs is reported.",
  input: z.strictObject({}),
  timeoutMs: 100,
  handler: (_args, ctx) =>
    new Promise((resolve) => {
      const t = setTimeout(resolve, 10_000);
      ctx.signal.addEventListener("abort", () => {
        clearTimeout(t);
        aborted.push(ctx.callId);
        // resolves late on purpose: the executor must not wait for it
        setTimeout(() => resolve("too late"), 5_000);
      });
    }),
});
const big = defineTool({
  ...common,
  name: "lab.big",
  title: "Big",
  description: "Use when you want about a megabyte of rows back.",
  input: z.strictObject({ rows: z.int() }),
  handler: ({ rows }) => Array.from({ length: rows }, (_, i) => ({ i, text: `row ${i} ${"·".repeat(40)}` })),
});
const capped = defineTool({
  ...common,
  name: "lab.capped",
  title: "Capped",
  description: "Use when you want output over the tool's output cap.",
  input: z.strictObject({}),
  maxOutputBytes: 1_000,
  handler: () => "x".repeat(5_000),
});
const weird = defineTool({
  ...common,
  name: "lab.weird",
  title: "Weird",
  description: "Use when you want an output that is not JSON.",
  input: z.strictObject({}),
  handler: () => ({ n: 10n }),
});
const send = defineTool({
  ...common,
  grade: "send",
  name: "lab.shout",
  title: "Shout",
  description: "Use when you want to shout at an outsider; needs a human's grant.",
  input: z.strictObject({ text: z.string() }),
  handler: ({ text }, ctx) => {
    ran.push(ctx.callId);
    return text;
  },
});

describe("executor: running allowed calls", () => {
  const t = useRunningExecutor(async (nats) => ({
    // the executor connects as its own identity: what its domain's user may do, no more
    bus: await nats.connectAs({ kind: "executor", name: "lab-1", domains: ["lab"] }),
    log: silentLogger(),
    domain: "lab",
    tools: [echo, fail, slow, big, capped, weird, send],
    executorId: "lab-1",
  }));

  it("registers its descriptors with the registry at start", () => {
    expect(t.executor.registered.map((r) => r.name).sort()).toEqual(
      ["lab.big", "lab.capped", "lab.echo", "lab.fail", "lab.shout", "lab.slow", "lab.weird"],
    );
    expect(t.executor.registered.find((r) => r.name === "lab.echo")?.descriptorHash).toBe(echo.descriptorHash);
  });

  it("claims an allowed call with ToolCallStarted and records the handler's output in ToolCallFinished", async () => {
    const pc = policyChecked(echo, { text: "hi" }, { principal: "bot", mode: "plan" });
    await append(t.bus, pc);
    const finished = await waitForEvent(t.bus, "lab", pc.callId, "ToolCallFinished");
    const started = await readEvent(t.bus, "lab", pc.callId, "ToolCallStarted");
    expect(started).toMatchObject({
      causationId: pc.eventId,
      principal: "bot",
      data: {
        executorId: "lab-1",
        version: "1.0.0",
        descriptorHash: echo.descriptorHash,
        argsHash: argsHash({ text: "hi" }),
        authorizedBy: { type: "ToolPolicyChecked", eventId: pc.eventId },
      },
    });
    expect(Date.parse(started!.data.deadline) - Date.parse(started!.ts)).toBeGreaterThanOrEqual(9_000);
    expect(finished).toMatchObject({
      causationId: started!.eventId,
      data: { ok: true, output: { text: "hi", principal: "bot", mode: "plan" }, truncated: false, artifacts: [], attempt: 1, executorId: "lab-1" },
    });
    expect(finished.data.outputBytes).toBe(JSON.stringify({ text: "hi", principal: "bot", mode: "plan" }).length);
  });

  it("turns a throwing handler into HANDLER_ERROR and keeps serving calls", async () => {
    const bad = policyChecked(fail, {});
    await append(t.bus, bad);
    const finished = await waitForEvent(t.bus, "lab", bad.callId, "ToolCallFinished");
    expect(finished.data).toMatchObject({ ok: false, error: { code: "HANDLER_ERROR", message: "the lab exploded", retryable: true } });
    const after = policyChecked(echo, { text: "still here" });
    await append(t.bus, after);
    expect((await waitForEvent(t.bus, "lab", after.callId, "ToolCallFinished")).data.ok).toBe(true);
  });

  it("times out a hanging handler with TIMEOUT, aborts its signal and does not wait for it", async () => {
    const pc = policyChecked(slow, {});
    await append(t.bus, pc);
    const finished = await waitForEvent(t.bus, "lab", pc.callId, "ToolCallFinished");
    expect(finished.data).toMatchObject({ ok: false, error: { code: "TIMEOUT" } });
    expect(finished.data.durationMs).toBeLessThan(4_000);
    expect(aborted).toContain(pc.callId);
  });

  it("stores ~1 MB of output as an artifact whose sha256 matches, keeping a preview that parses", async () => {
    const pc = policyChecked(big, { rows: 16_000 });
    await append(t.bus, pc);
    const finished = await waitForEvent(t.bus, "lab", pc.callId, "ToolCallFinished");
    const expected = JSON.stringify(Array.from({ length: 16_000 }, (_, i) => ({ i, text: `row ${i} ${"·".repeat(40)}` })));
    const d = finished.data;
    expect(d).toMatchObject({ ok: true, truncated: true, outputBytes: Buffer.byteLength(expected) });
    expect(d.outputBytes).toBeGreaterThan(1_000_000);
    expect(d.artifacts).toHaveLength(1);
    const ref = d.artifacts[0]!;
    expect(ref).toMatchObject({ id: `${pc.callId}.output.json`, bytes: d.outputBytes, contentType: "application/json" });
    const stored = await readArtifact(t.bus, ref.id);
    expect(stored).toBeDefined();
    expect(sha256Hex(stored!)).toBe(ref.sha256);
    expect(Buffer.from(stored!).toString("utf8")).toBe(expected);
    const previewText = JSON.stringify(d.output);
    expect(Buffer.byteLength(previewText)).toBeLessThanOrEqual(OUTPUT_PREVIEW_BYTES);
    const preview = JSON.parse(previewText) as { i: number }[];
    expect(preview.length).toBeGreaterThan(10);
    expect(preview[0]).toEqual({ i: 0, text: `row 0 ${"·".repeat(40)}` });
    const full = await readArtifactJson(t.bus, ref.id);
    expect(full.ok && Array.isArray(full.value) && full.value.length).toBe(16_000);
    // reads leave no consumer behind (nats-server ≥ 2.10 keeps an object get's for 5 minutes, and a stream takes 1,000)
    const consumers = async () => (await t.bus.jsm.streams.info(`OBJ_${OBJECT_STORE_ARTIFACTS}`)).state.consumer_count;
    const before = await consumers();
    for (let i = 0; i < 5; i++) expect(sha256Hex((await readArtifact(t.bus, ref.id))!)).toBe(ref.sha256);
    expect(await consumers()).toBe(before);
  });

  it("reads nothing back for an artifact that does not exist", async () => {
    expect(await readArtifact(t.bus, `${newId()}.output.json`)).toBeUndefined();
    expect(await readArtifactJson(t.bus, `${newId()}.output.json`)).toMatchObject({ ok: false, error: { code: "NOT_FOUND" } });
  });

  it("refuses output over the tool's cap with OUTPUT_TOO_LARGE and output that is not JSON with OUTPUT_INVALID", async () => {
    const a = policyChecked(capped, {});
    const b = policyChecked(weird, {});
    await append(t.bus, a);
    await append(t.bus, b);
    expect((await waitForEvent(t.bus, "lab", a.callId, "ToolCallFinished")).data).toMatchObject({
      ok: false,
      outputBytes: 5_002,
      error: { code: "OUTPUT_TOO_LARGE" },
    });
    expect((await waitForEvent(t.bus, "lab", b.callId, "ToolCallFinished")).data).toMatchObject({ ok: false, error: { code: "OUTPUT_INVALID" } });
  });

  it("skips a call the policy did not allow, writing nothing", async () => {
    const pending = policyChecked(echo, { text: "wait" }, { decision: "require_approval" });
    const seq = await append(t.bus, pending);
    await waitForAck(t.bus, "executor-allowed-lab", seq);
    expect(await readEvent(t.bus, "lab", pending.callId, "ToolCallStarted")).toBeUndefined();
    expect(await readEvent(t.bus, "lab", pending.callId, "ToolCallRejected")).toBeUndefined();
    expect(ran).not.toContain(pending.callId);
  });

  it("refuses a call bound to another descriptor with DESCRIPTOR_CHANGED, without running it", async () => {
    const other = policyChecked(echo, { text: "x" }, { descriptorHash: `sha256:${"0".repeat(64)}` });
    const older = policyChecked(echo, { text: "x" }, { version: "0.9.0" });
    await append(t.bus, other);
    await append(t.bus, older);
    for (const pc of [other, older]) {
      const rejected = await waitForEvent(t.bus, "lab", pc.callId, "ToolCallRejected");
      expect(rejected).toMatchObject({ causationId: pc.eventId, data: { stage: "executor", error: { code: "DESCRIPTOR_CHANGED" } } });
      expect(await readEvent(t.bus, "lab", pc.callId, "ToolCallStarted")).toBeUndefined();
      expect(ran).not.toContain(pc.callId);
    }
  });

  it("refuses args that do not match their argsHash, or that the tool's own schema rejects, with INVALID_ARGS", async () => {
    const swapped = policyChecked(echo, { text: "rm -rf" }, { argsHash: argsHash({ text: "ls" }) });
    const wrongType = policyChecked(echo, { text: 42 });
    await append(t.bus, swapped);
    await append(t.bus, wrongType);
    for (const pc of [swapped, wrongType]) {
      const rejected = await waitForEvent(t.bus, "lab", pc.callId, "ToolCallRejected");
      expect(rejected.data).toMatchObject({ stage: "executor", error: { code: "INVALID_ARGS" } });
      expect(ran).not.toContain(pc.callId);
    }
  });

  it("never runs a send tool on a policy allow alone", async () => {
    const pc = policyChecked(send, { text: "HELLO" });
    await append(t.bus, pc);
    const rejected = await waitForEvent(t.bus, "lab", pc.callId, "ToolCallRejected");
    expect(rejected.data).toMatchObject({ stage: "executor", error: { code: "GRANT_INVALID" } });
    expect(await readEvent(t.bus, "lab", pc.callId, "ToolCallStarted")).toBeUndefined();
    expect(ran).not.toContain(pc.callId);
  });

  it("refuses an allowed call whose policy decision does not answer the call's ToolArgsValidated, without running it", async () => {
    const cases = [
      ["validation-missing", policyChecked(echo, { text: "a" }, { validated: "none" })],
      ["policy-cause", policyChecked(echo, { text: "b" }, { causationId: newId() })],
      ["policy-args", policyChecked(echo, { text: "c" }, { validated: { argsHash: argsHash({ text: "other" }) } })],
      ["policy-descriptor", policyChecked(echo, { text: "d" }, { validated: { descriptorHash: `sha256:${"5".repeat(64)}` } })],
      ["policy-descriptor", policyChecked(echo, { text: "e" }, { validated: { version: "0.9.0" } })],
    ] as const;
    for (const [, pc] of cases) await append(t.bus, pc);
    for (const [check, pc] of cases) {
      const rejected = await waitForEvent(t.bus, "lab", pc.callId, "ToolCallRejected");
      expect(rejected, check).toMatchObject({ causationId: pc.eventId, data: { stage: "executor", error: { code: "GRANT_INVALID", details: { check } } } });
      expect(await readEvent(t.bus, "lab", pc.callId, "ToolCallStarted")).toBeUndefined();
      expect(ran).not.toContain(pc.callId);
    }
  });

  it("refuses a policy decision copied onto another call", async () => {
    const original = policyChecked(echo, { text: "mine" });
    await append(t.bus, original);
    await waitForEvent(t.bus, "lab", original.callId, "ToolCallFinished");
    const other = policyChecked(echo, { text: "mine" });
    // the other call's ToolArgsValidated is written first (the harness builds `other` on it); the copy answers the first call's
    const copy = { ...original, callId: other.callId, eventId: other.eventId };
    await append(t.bus, copy);
    const rejected = await waitForEvent(t.bus, "lab", other.callId, "ToolCallRejected");
    expect(rejected.data.error).toMatchObject({ code: "GRANT_INVALID", details: { check: "policy-cause" } });
    expect(ran.filter((c) => c === other.callId)).toHaveLength(0);
  });
});

