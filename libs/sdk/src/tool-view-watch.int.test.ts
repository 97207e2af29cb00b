import { describe, expect, it } from "vitest";
import { encodeJson } from "@warden/bus";
import { SUBJECT_REGISTRY_CHANGED } from "@warden/contracts/subjects";
import { type Outcome } from "@warden/contracts/errors";
import { ToolViewQuerySchema } from "@warden/contracts/descriptor";
import { type JsonValue } from "@warden/contracts/json";
import { eventually, useConnections, useTestNats } from "@warden/testing";
import type { ToolViewResult } from "./tool-view-result.js";
import { watchToolViewOn } from "./tool-view-watch.js";

/** A view whose rendering is `formatted`, as the registry would answer it. */
function viewOf(formatted: JsonValue, policyVersion = "p1"): ToolViewResult {
  return { view: { query: ToolViewQuerySchema.parse({ principal: "watcher", mode: "llm" }), policyVersion, tools: [], hidden: [] }, formatted };
}

/** A read that answers whatever `current` holds, counting the reads. */
function reader(initial: ToolViewResult) {
  const state = { current: initial, reads: 0 };
  return { state, read: async (): Promise<Outcome<ToolViewResult>> => ((state.reads += 1), { ok: true, value: state.current }) };
}

describe("following a caller's ToolView", () => {
  /** Its admin connection (`server.bus`) plays the registry's announcements. */
  const server = useTestNats();
  const callers = useConnections(server, { agent: { kind: "agent", name: "watcher" }, executor: { kind: "executor", name: "watch-executor", domains: ["kb"] } });

  it("reads the view again on the registry's announcement and tells only of a view that differs", async () => {
    const { state, read } = reader(viewOf(["a"]));
    const seen: JsonValue[] = [];
    const watch = watchToolViewOn(callers.agent, read, (v) => seen.push(v.formatted), { settleMs: 10 });
    await watch.ready;
    await callers.agent.nc.flush();
    server.bus.nc.publish(SUBJECT_REGISTRY_CHANGED, encodeJson({ change: "tools", policyVersion: "p1" }));
    await eventually(() => expect(state.reads).toBe(2));
    expect(seen).toEqual([]);
    state.current = viewOf(["a", "b"]);
    server.bus.nc.publish(SUBJECT_REGISTRY_CHANGED, encodeJson({ change: "tools", policyVersion: "p1" }));
    await eventually(() => expect(seen).toEqual([["a", "b"]]));
    // a new policy version is a change even when the tools are the same
    state.current = viewOf(["a", "b"], "p2");
    expect(await watch.refresh()).toBe(true);
    expect(seen).toHaveLength(2);
    watch.stop();
  });

  it("still follows the view by reading it every pollMs when the credentials may not hear announcements", async () => {
    const { state, read } = reader(viewOf(["x"]));
    const seen: JsonValue[] = [];
    const watch = watchToolViewOn(callers.executor, read, (v) => seen.push(v.formatted), { pollMs: 100 });
    await watch.ready;
    state.current = viewOf(["y"]);
    await eventually(() => expect(seen).toEqual([["y"]]));
    watch.stop();
  });

  it("goes on after a read that failed, and reports it", async () => {
    const errors: string[] = [];
    let fail = false;
    const read = async (): Promise<Outcome<ToolViewResult>> =>
      fail ? { ok: false, error: { code: "UNAVAILABLE", message: "no registry", retryable: true } } : { ok: true, value: viewOf(["z"]) };
    const watch = watchToolViewOn(callers.agent, read, () => undefined, { onError: (e) => errors.push(e.code) });
    await watch.ready;
    fail = true;
    expect(await watch.refresh()).toBe(false);
    expect(errors).toEqual(["UNAVAILABLE"]);
    expect(watch.current()?.formatted).toEqual(["z"]);
    watch.stop();
  });
});
