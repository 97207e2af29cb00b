import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineTool, type Executor } from "@warden/executor";
import { z } from "zod";
import { eventually } from "@warden/testing";
import { runWarden } from "../support/cli.js";
import { startTestWarden, type TestWarden } from "../support/warden.js";

interface Status {
  services: { name: string; version: string; metadata: Record<string, string> }[];
  executors: { domain: string; alive: boolean; enabledTools: number }[];
  consumers: { durable: string; pending: number }[];
  dlq: { messages: number };
  stream: { name: string; messages: number; maxAgeSeconds: number };
  approvals: { pending: number };
  policy: { version: string | null };
  problems: string[];
}

/** `warden status`: what an operator looks at first, read from the bus as the admin or an auditor. */
describe("warden status", () => {
  let w: TestWarden;
  let notes: Executor;
  const status = async (...as: string[]) => {
    const r = await runWarden(w.nats.home.dir, "status", "--json", ...as);
    expect(r.code, `${r.err}${r.out}`).toBe(0);
    return JSON.parse(r.out) as Status;
  };

  beforeAll(async () => {
    w = await startTestWarden({ demo: true, policy: { version: "e2e-status", principals: {}, rules: [], budgets: {} } });
    await w.nats.credsOf({ kind: "auditor", name: "auditor" });
    const tool = defineTool({
      name: "notes.read",
      version: "1.0.0",
      title: "Read a note",
      description: "Use when testing what warden status says of a domain.",
      grade: "read",
      input: z.strictObject({}),
      handler: async () => ({}),
    });
    notes = await w.startExecutor("notes", [tool]);
  });
  afterAll(async () => w.stop());

  it("lists the services that answer discovery with their version, every domain's executor, the stages' lag, the stream and the policy version", async () => {
    const s = await status();
    const names = s.services.map((x) => x.name);
    for (const core of ["warden-registry", "warden-policy", "warden-approver"]) expect(names).toContain(core);
    expect(s.services.find((x) => x.name === "warden-executor" && x.metadata["domain"] === "notes")).toMatchObject({ version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
    expect(s.executors.find((e) => e.domain === "notes")).toEqual(expect.objectContaining({ domain: "notes", alive: true, enabledTools: 1 }));
    expect(s.consumers.map((c) => c.durable)).toEqual(expect.arrayContaining(["registry-validate", "executor-allowed-notes"].filter((d) => s.consumers.some((c) => c.durable === d))));
    expect(s.consumers.length).toBeGreaterThan(3);
    expect(s.stream).toMatchObject({ name: "WARDEN_CALLS", maxAgeSeconds: 15_897_600 });
    expect(s.policy.version).toBe("e2e-status");
    expect(s.problems.filter((p) => p.includes("notes"))).toEqual([]);
    // an auditor reads the same, writing nothing
    const audited = await status("--as", "auditor");
    expect(audited.services.map((x) => x.name)).toContain("warden-policy");
  });

  it("shows a stopped executor's domain as down once its heartbeat has run out, names it as a problem, and views hide its tools", async () => {
    await notes.stop();
    const s = await eventually(async () => {
      const r = await status();
      expect(r.executors.find((e) => e.domain === "notes")).toMatchObject({ alive: false, enabledTools: 1 });
      return r;
    }, 30_000);
    expect(s.services.some((x) => x.name === "warden-executor" && x.metadata["domain"] === "notes")).toBe(false);
    expect(s.problems).toContain("domain notes has 1 enabled tool(s) and no live executor: its calls are refused UNAVAILABLE");
    // a model is not shown what it could not run: the view hides the domain's tools
    const agent = await w.agent("bot");
    const view = await agent.toolView({ mode: "llm", explain: true });
    expect(view.ok && view.value.view.hidden.find((h) => h.name === "notes.read")).toMatchObject({ reason: "no_executor" });
    expect(view.ok && view.value.view.tools.map((t) => t.name)).toContain("kb.search");
    const text = await runWarden(w.nats.home.dir, "status");
    expect(text.out).toMatch(/^ {2}notes +DOWN +1 enabled tool\(s\)$/m);
    for (const line of text.out.split("\n")) expect(line.length).toBeLessThanOrEqual(100);
  }, 60_000);
});
