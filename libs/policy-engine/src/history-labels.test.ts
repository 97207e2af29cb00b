import { describe, expect, it } from "vitest";
import { record } from "../test-support/fixtures.js";
import { runLabelsFromHistory } from "./history-labels.js";
import type { HistoryRecord } from "./history-replay.js";

const tools = [
  record({ name: "web.fetch", title: "Fetch", openWorld: true }),
  record({ name: "kb.search", title: "Search" }),
  record({ name: "vault.read", title: "Read the vault", secrets: ["vaultToken"] }),
];
const NOW = Date.parse("2030-01-01T10:30:00Z");
const call = (over: Partial<HistoryRecord> & Pick<HistoryRecord, "callId" | "tool">): HistoryRecord => ({ principal: "bot", runId: "r1", at: "2030-01-01T10:00:00Z", outcome: "ok", ...over });

describe("runLabelsFromHistory", () => {
  it("gives each label of the run with the earliest result that carried it, from the tools' descriptors", () => {
    const labels = runLabelsFromHistory(
      [call({ callId: "f2", tool: "web.fetch", at: "2030-01-01T10:10:00Z" }), call({ callId: "f1", tool: "web.fetch" }), call({ callId: "v1", tool: "vault.read" }), call({ callId: "k1", tool: "kb.search" })],
      tools,
      { runId: "r1" },
      NOW,
    );
    expect([...labels.values()]).toEqual([
      { label: "untrusted", callId: "f1", tool: "web.fetch" },
      { label: "secret-derived", callId: "v1", tool: "vault.read" },
    ]);
  });

  it("counts only results of this run that ended ok or unknown by now, and takes a record's own labels first", () => {
    const labels = runLabelsFromHistory(
      [
        call({ callId: "other-run", tool: "web.fetch", runId: "r2" }),
        call({ callId: "running", tool: "web.fetch", outcome: "pending" }),
        call({ callId: "failed", tool: "web.fetch", outcome: "failed" }),
        call({ callId: "ends-later", tool: "web.fetch", endedAt: "2030-01-01T10:31:00Z" }),
        call({ callId: "unknown", tool: "kb.search", outcome: "unknown", labels: ["customer-pii"] }),
      ],
      tools,
      { runId: "r1" },
      NOW,
    );
    expect([...labels.values()]).toEqual([{ label: "customer-pii", callId: "unknown", tool: "kb.search" }]);
  });

  it("gives a delegated call the labels of its tree's top run", () => {
    const history = [call({ callId: "top", tool: "kb.search", runId: "parent-run" }), call({ callId: "f1", tool: "web.fetch", runId: "parent-run" })];
    expect([...runLabelsFromHistory(history, tools, { runId: "child-run", treeRoot: "top" }, NOW).keys()]).toEqual(["untrusted"]);
    expect(runLabelsFromHistory(history, tools, { runId: "child-run" }, NOW).size).toBe(0);
  });
});
