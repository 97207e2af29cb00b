import { describe, expect, it } from "vitest";
import { defineTool, type RecordedResult } from "@warden/executor";
import { callEvents, eventTypes, eventually } from "@warden/testing";
import { z } from "zod";
import { runWarden } from "../support/cli.js";
import { usualPrincipals } from "../support/usual-principals.js";
import { useTestWarden } from "../support/use-test-warden.js";

/**
 * A tool's preCall and postCall over the real services: preCall refuses a call right before its
 * handler (the call ends PRECALL_REFUSED, the handler never ran); postCall sees the recorded result;
 * what the handler reports through ctx.effects is recorded on the result and shown by the trace.
 */
describe("call hooks and effects: preCall refuses before the handler, postCall sees the recorded result, effects are recorded", () => {
  const locked = new Set(["doc-locked"]);
  const handled: string[] = [];
  const followed: { result: RecordedResult; docId: string }[] = [];
  const edit = defineTool({
    name: "docs.edit",
    version: "1.0.0",
    title: "Edit a document",
    description: "Use when a document's text must change; readers see the new text at once.",
    grade: "write",
    input: z.strictObject({ docId: z.string(), text: z.string() }),
    preCall: ({ docId }) => (locked.has(docId) ? `${docId} is locked for review` : undefined),
    handler: ({ docId, text }, ctx) => {
      handled.push(docId);
      ctx.effects.wrote(`docs/${docId}`);
      return { docId, chars: text.length };
    },
    postCall: (result, { docId }) => {
      followed.push({ result, docId });
    },
  });

  const t = useTestWarden({ policy: { version: "e2e-hooks", principals: usualPrincipals("planner") } }, async (w) => {
    await w.startExecutor("docs", [edit]);
    const planner = await w.agent("planner");
    return { planner };
  });

  it("ends a call its preCall refuses with PRECALL_REFUSED after the claim, without running the handler or postCall", async () => {
    const refused = await t.planner.call("docs.edit", { docId: "doc-locked", text: "hello" }, { mode: "plan" });
    expect(refused).toMatchObject({
      ok: false,
      status: "failed",
      error: { code: "PRECALL_REFUSED", retryable: false, message: "the tool's preCall check refused the call, it did not run: doc-locked is locked for review" },
    });
    expect(eventTypes(await callEvents(t.w.bus, refused.callId)).slice(-2)).toEqual(["ToolCallStarted", "ToolCallFinished"]);
    expect(handled).toEqual([]);
    expect(followed).toEqual([]);
  });

  it("runs postCall after the outcome is recorded, with the result the call records", async () => {
    const done = await t.planner.call("docs.edit", { docId: "doc-1", text: "hello" }, { mode: "plan" });
    expect(done).toMatchObject({ ok: true, data: { docId: "doc-1", chars: 5 } });
    expect(handled).toEqual(["doc-1"]);
    await eventually(() => expect(followed).toEqual([{ result: { ok: true, output: { docId: "doc-1", chars: 5 }, truncated: false }, docId: "doc-1" }]));
  });

  it("records what the handler reported through ctx.effects on ToolCallFinished, and warden trace shows it", async () => {
    const done = await t.planner.call("docs.edit", { docId: "doc-2", text: "hi" }, { mode: "plan" });
    expect(done).toMatchObject({ ok: true });
    const finished = (await callEvents(t.w.bus, done.callId)).find((e) => e.type === "ToolCallFinished");
    expect(finished?.type === "ToolCallFinished" ? finished.data.effectsObserved : undefined).toEqual({ reads: [], writes: ["docs/doc-2"], external: [] });
    const trace = await runWarden(t.w.nats.home.dir, "trace", done.callId);
    expect(trace.code).toBe(0);
    expect(trace.out.slice(trace.out.indexOf("ToolCallFinished"))).toMatch(/wrote=docs\/doc-2/);
  });
});
