import { describe, expect, it } from "vitest";
import { type WardenEvent } from "@warden/contracts/events";
import { runBudgetKey, toolBudgetKey, principalBudgetKey } from "@warden/contracts/subjects";
import { digestModels } from "./digest.js";
import { emptyModelMaps, foldEvent, type ModelMaps } from "./fold.js";
import { SYNTHETIC_OUTCOMES, syntheticCall } from "@warden/testing";

function stream(): WardenEvent[] {
  return SYNTHETIC_OUTCOMES.flatMap((outcome, i) =>
    syntheticCall({ callId: `c${i}`, outcome, runId: i % 2 === 0 ? "even" : "odd", tool: outcome === "approved" ? "customer.message" : "kb.search" }),
  );
}

function foldAll(events: readonly WardenEvent[], maps: ModelMaps = emptyModelMaps()): ModelMaps {
  events.forEach((e, i) => foldEvent(maps, i + 1, e));
  return maps;
}

const digests = (m: ModelMaps) => ({ calls: digestModels(m.calls), approvals: digestModels(m.approvals), budgets: digestModels(m.budgets) });

describe("folding a stream into every read model", () => {
  it("counts each run's, tool's and principal's calls by outcome", () => {
    const maps = foldAll(stream());
    expect(maps.budgets.get(runBudgetKey("even"))).toMatchObject({ kind: "run", name: "even", counts: { requested: 5 } });
    const all = maps.budgets.get(principalBudgetKey("bot"))!;
    expect(all).toMatchObject({
      counts: { requested: 9, admitted: 7, started: 5, succeeded: 3, failed: 1, rejected: 2, denied: 1, expired: 1, outcome_unknown: 1 },
    });
    expect(maps.budgets.get(toolBudgetKey("customer.message"))).toMatchObject({ counts: { requested: 1, admitted: 1, succeeded: 1 } });
  });

  it("keeps an inbox record per approval with its outcome", () => {
    const maps = foldAll(stream());
    const statuses = [...maps.approvals.values()].map((r) => (r as unknown as { status: string }).status).sort();
    expect(statuses).toEqual(["denied", "expired", "granted"]);
  });

  it("gives the same digests however often the stream is replayed over the same models (no double counting)", () => {
    const events = stream();
    const once = digests(foldAll(events));
    const twice = foldAll(events, foldAll(events));
    expect(digests(twice)).toEqual(once);
  });

  it("gives the same digests when a replay resumes from any point", () => {
    const events = stream();
    const whole = digests(foldAll(events));
    for (const cut of [1, 7, 20, events.length - 1]) {
      const maps = emptyModelMaps();
      events.slice(0, cut).forEach((e, i) => foldEvent(maps, i + 1, e));
      // a restart re-delivers from somewhere before the cut
      events.forEach((e, i) => foldEvent(maps, i + 1, e));
      expect(digests(maps)).toEqual(whole);
    }
  });

  it("changes a digest when one event differs", () => {
    const events = stream();
    const changed = events.map((e, i) => (i === 3 ? { ...e, ts: "2031-01-01T00:00:00.000Z" } : e));
    expect(digests(foldAll(changed)).calls).not.toBe(digests(foldAll(events)).calls);
  });
});
