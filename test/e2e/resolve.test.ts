import { describe, expect, it } from "vitest";
import { runWarden } from "../support/cli.js";
import { useTestWarden } from "../support/use-test-warden.js";

/** An intent resolved into ranked tools over the real registry and policy (the demo's tools). */
describe("resolving an intent", () => {
  const t = useTestWarden({ demo: true }, async (w) => ({
    bot: await w.agent("support-bot", { mode: "llm" }),
  }));

  it("ranks what the model may see for a goal, with why, and hands it a view of just those", async () => {
    const r = await t.bot.resolve({ goal: "find knowledge base articles about a refund" }, { limit: 2, explain: true });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const { view, formatted } = r.value;
    expect(view.candidates?.[0]).toMatchObject({ name: "kb.search", reasons: expect.arrayContaining([expect.stringMatching(/^title matches /)]) });
    expect(view.candidates!.length).toBeLessThanOrEqual(2);
    expect(view.tools.map((t) => t.name)).toEqual(view.candidates!.map((c) => c.name));
    expect((formatted as { function: { name: string } }[]).map((t) => t.function.name)).toEqual(view.tools.map((t) => t.name.replace(".", "__")));
    // the send that also speaks of customers is never a model's candidate
    expect(view.candidates!.map((c) => c.name)).not.toContain("customer.message");
    expect(view.hidden.find((h) => h.name === "customer.message")?.reason).toBe("send_never_listed_for_llm");
  });

  it("narrows by domain, and answers no candidates rather than a guess", async () => {
    const kb = await t.bot.resolve({ goal: "search articles", domain: "kb" });
    expect(kb.ok && kb.value.view.candidates?.every((c) => c.name.startsWith("kb."))).toBe(true);
    const none = await t.bot.resolve({ goal: "launch the rocket" });
    expect(none.ok && none.value.view).toMatchObject({ tools: [], candidates: [] });
  });

  it("keeps to the level asked for: a person's view of the demo tools capped at L0 has only pure reads", async () => {
    const alice = await t.w.person("alice", { mode: "human" });
    const all = await alice.resolve({ goal: "customer refund invoice ticket article" }, { limit: 50 });
    const capped = await alice.resolve({ goal: "customer refund invoice ticket article", maxLevel: "L0" }, { limit: 50 });
    if (!all.ok || !capped.ok) throw new Error("resolve failed");
    expect(all.value.view.candidates!.some((c) => c.level !== "L0"), JSON.stringify(all.value.view.candidates)).toBe(true);
    expect(capped.value.view.candidates!.length).toBeGreaterThan(0);
    expect(capped.value.view.candidates!.every((c) => c.level === "L0" && c.grade === "read")).toBe(true);
  });

  it("caps a view asked for without an intent, reads first, and says how many it left out and how to ask (request and warden tools --max-tools)", async () => {
    const alice = await t.w.person("alice", { mode: "human" });
    const full = await alice.toolView({ explain: true });
    const capped = await alice.toolView({ maxTools: 3, explain: true });
    if (!full.ok || !capped.ok) throw new Error("view failed");
    // the demo's tools fit the default cap of 20
    expect(full.value.view.omitted).toBeUndefined();
    const n = full.value.view.tools.length;
    expect(n).toBeGreaterThan(3);
    expect(full.value.view.tools.some((t) => t.grade !== "read")).toBe(true);
    expect(capped.value.view.tools).toHaveLength(3);
    expect(capped.value.view.tools.every((t) => t.grade === "read")).toBe(true);
    expect(capped.value.view.omitted).toMatchObject({ count: n - 3, maxTools: 3, capFrom: "request", hint: expect.stringContaining("intent") });
    expect(capped.value.view.hidden.filter((h) => h.reason === "over_view_cap")).toHaveLength(n - 3);
    const text = await runWarden(t.w.nats.home.dir, "tools", "--principal", "alice", "--mode", "human", "--max-tools", "3");
    expect(text.code, text.err).toBe(0);
    expect(text.out).toContain(`${n - 3} more not listed: a view without an intent shows at most 3 (--max-tools), reads first;`);
    const bad = await runWarden(t.w.nats.home.dir, "tools", "--max-tools", "0");
    expect(bad.code).toBe(1);
    expect(bad.err).toContain("--max-tools is a whole number from 1 to 500");
  });

  it("warden resolve prints the ranking, and refuses a bad grade, action type or level", async () => {
    const r = await runWarden(t.w.nats.home.dir, "resolve", "--goal", "find knowledge base articles about a refund", "--principal", "support-bot", "--mode", "llm", "--limit", "1", "--json");
    expect(r.code, r.err).toBe(0);
    expect((JSON.parse(r.out) as { view: { candidates: { name: string }[] } }).view.candidates.map((c) => c.name)).toEqual(["kb.search"]);
    const bad = await runWarden(t.w.nats.home.dir, "resolve", "--goal", "x", "--grade", "delete");
    expect(bad.code).toBe(1);
    expect(bad.err).toContain("--grade is read, write or send");
    const badAction = await runWarden(t.w.nats.home.dir, "resolve", "--goal", "x", "--action-type", "nuke");
    expect(badAction.code).toBe(1);
    expect(badAction.err).toContain("--action-type is one of read, search");
    const badLevel = await runWarden(t.w.nats.home.dir, "resolve", "--goal", "x", "--max-level", "L9");
    expect(badLevel.code).toBe(1);
    expect(badLevel.err).toContain("--max-level is L0, L1, L2, L3, L4 or L5");
  });
});
