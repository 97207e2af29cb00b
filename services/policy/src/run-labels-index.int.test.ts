import { describe, expect, it } from "vitest";
import { appendEvent } from "@warden/bus";
import { descriptorHash, ToolDescriptorSchema } from "@warden/contracts/descriptor";
import { argsValidated } from "@warden/testing";
import { usePolicyCopies } from "../test-support/policy-copies.js";
import { labelRunOf } from "./delegation-tree.js";
import { openRunLabels } from "./run-labels-index.js";

/** Two policy copies' views of one run's labels, each over its own policy connection. */
describe("run labels across policy copies", () => {
  const copies = usePolicyCopies(openRunLabels);

  const web = (callId: string, labels = ["untrusted"]) => ({ callId, tool: "web.fetch", domain: "web", labels });

  it("counts a labelled result for every copy once it finished ok, not while it is in flight", async () => {
    expect(await copies.a.record("run-1", web("w1"))).toBe("recorded");
    // in flight, and no outcome on the stream: its content cannot have reached the agent
    expect((await copies.b.read("run-1")).size).toBe(0);
    await copies.a.settle("run-1", "w1", "ok");
    expect([...(await copies.b.read("run-1")).values()]).toEqual([{ label: "untrusted", callId: "w1", tool: "web.fetch" }]);
    // another run is untouched; a second read bringing nothing new keeps the first as the source
    expect((await copies.b.read("run-2")).size).toBe(0);
    expect(await copies.b.record("run-1", web("w2"))).toBe("recorded");
    await copies.b.settle("run-1", "w2", "ok");
    expect((await copies.a.read("run-1")).get("untrusted")?.callId).toBe("w1");
  });

  it("forgets a labelled call that did not run, and settles twice to the same state", async () => {
    await copies.a.record("run-3", web("w3", ["private"]));
    await copies.b.settle("run-3", "w3", "released");
    await copies.a.settle("run-3", "w3", "released");
    expect((await copies.a.read("run-3")).size).toBe(0);
    await copies.a.record("run-3", web("w4", ["private"]));
    await copies.a.settle("run-3", "w4", "unknown");
    await copies.b.settle("run-3", "w4", "unknown");
    // an outcome unknown may have run: counted
    expect([...(await copies.b.read("run-3")).keys()]).toEqual(["private"]);
  });

  it("keeps concurrent records of both copies (compare-and-set)", async () => {
    await Promise.all(["alpha", "beta", "gamma", "delta"].map((l, i) => (i % 2 === 0 ? copies.a : copies.b).record("run-4", web(`c${i}`, [l]))));
    await Promise.all([0, 1, 2, 3].map((i) => (i % 2 === 0 ? copies.b : copies.a).settle("run-4", `c${i}`, "ok")));
    expect([...(await copies.a.read("run-4")).keys()].sort()).toEqual(["alpha", "beta", "delta", "gamma"]);
  });

  it("gives a subagent's child run the labels key of the run at the top of its delegation chain", async () => {
    const d = ToolDescriptorSchema.parse({ name: "agent.lead", version: "1.0.0", title: "Lead", description: "Use when a task needs a lead agent.", grade: "read", inputSchema: { type: "object" } });
    const tool = { domain: "agent", descriptor: d, descriptorHash: descriptorHash(d) };
    const top = { ...argsValidated(tool, { task: "t" }), correlationId: "run-top" };
    const mid = { ...argsValidated(tool, { task: "u" }), correlationId: "run-child", parentCallId: top.callId };
    for (const e of [top, mid]) expect((await appendEvent(copies.admin, e)).status).toBe("written");
    expect(await labelRunOf(copies.admin, { correlationId: "run-grandchild", parentCallId: mid.callId })).toBe("run-top");
    expect(await labelRunOf(copies.admin, { correlationId: "run-alone" })).toBe("run-alone");
  });
});
