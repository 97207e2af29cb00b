import { fail } from "@warden/contracts/errors";
import { type DecidedApproval, type PendingApproval } from "@warden/contracts/approval";
import { eventually, pendingSend } from "@warden/testing";
import { afterEach, describe, expect, it } from "vitest";
import { startInboxFeed, type InboxFeed } from "./inbox-feed.js";
import { standInClient } from "../test-support/stand-in-client.js";

describe("startInboxFeed", () => {
  let feed: InboxFeed | undefined;
  afterEach(async () => feed?.stop());

  const start = (cards: PendingApproval[], failing?: { now: boolean }) => {
    const client = standInClient(cards);
    const pending = client.pending;
    client.pending = async () => (failing?.now ? fail("UNAVAILABLE", "no approver service answered") : pending());
    feed = startInboxFeed({ client, refreshMs: 60_000 });
    return feed;
  };

  it("lists the pending cards oldest first", async () => {
    const older = { ...pendingSend("ap-old"), requestedAt: "2026-01-01T00:00:00.000Z" };
    const f = start([pendingSend("ap-new"), older]);
    await eventually(() => expect(f.snapshot().pending.map((p) => p.approvalId)).toEqual(["ap-old", "ap-new"]));
    expect(f.snapshot()).toMatchObject({ person: "alice", history: [], status: { ok: true } });
  });

  it("moves a card that left the inbox to the history: expired past its expiry, else gone", async () => {
    const expiring = { ...pendingSend("ap-exp"), expiresAt: new Date(Date.now() + 50).toISOString() };
    const cards = [pendingSend("ap-1"), expiring];
    const f = start(cards);
    await eventually(() => expect(f.snapshot().pending).toHaveLength(2));
    cards.splice(0, 2);
    await eventually(() => expect(Date.now()).toBeGreaterThan(Date.parse(expiring.expiresAt)));
    await f.refresh();
    const outcomes = Object.fromEntries(f.snapshot().history.map((h) => [h.approvalId, [h.outcome, h.by]]));
    expect(outcomes).toEqual({ "ap-1": ["gone", null], "ap-exp": ["expired", null] });
    expect(f.snapshot().pending).toEqual([]);
  });

  it("records this person's own decision at once, with the reason, and not again as gone", async () => {
    const cards = [pendingSend("ap-1")];
    const f = start(cards);
    await eventually(() => expect(f.snapshot().pending).toHaveLength(1));
    f.decided("ap-1", "deny", "wrong customer");
    expect(f.snapshot().pending).toEqual([]);
    cards.splice(0, 1);
    await f.refresh();
    expect(f.snapshot().history).toEqual([expect.objectContaining({ approvalId: "ap-1", outcome: "denied", by: "alice", reason: "wrong customer" })]);
  });

  it("starts the history with what the approver recorded this person decided, and names a card that left as decided by them", async () => {
    const earlier = { ...pendingSend("ap-then"), callId: "call-then" };
    const cards = [pendingSend("ap-now")];
    const decided: DecidedApproval[] = [
      { approvalId: "ap-then", callId: "call-then", domain: "customer", tool: earlier.tool, title: earlier.title, principal: "planner", argsPreview: "{}", outcome: "denied", decidedBy: "alice", decidedAt: "2030-01-01T00:00:00.000Z", reason: "not this week" },
    ];
    const client = standInClient(cards, decided);
    feed = startInboxFeed({ client, refreshMs: 60_000 });
    const f = feed;
    await eventually(() => expect(f.snapshot().history).toEqual([expect.objectContaining({ approvalId: "ap-then", outcome: "denied", by: "alice", reason: "not this week" })]));
    // decided elsewhere (the CLI, another inbox): it leaves the list, and the approver says alice granted it
    cards.splice(0, 1);
    decided.unshift({ ...decided[0]!, approvalId: "ap-now", callId: "call-ap-now", outcome: "granted", reason: null, decidedAt: "2030-01-01T00:05:00.000Z" });
    await f.refresh();
    expect(f.snapshot().history.map((h) => [h.approvalId, h.outcome, h.by])).toEqual([
      ["ap-now", "granted", "alice"],
      ["ap-then", "denied", "alice"],
    ]);
  });

  it("keeps the last cards and says why when the inbox cannot be read, then recovers", async () => {
    const failing = { now: false };
    const f = start([pendingSend("ap-1")], failing);
    await eventually(() => expect(f.snapshot().pending).toHaveLength(1));
    failing.now = true;
    await f.refresh();
    expect(f.snapshot().status).toMatchObject({ ok: false, error: { code: "UNAVAILABLE", retryable: true } });
    expect(f.snapshot().pending).toHaveLength(1);
    failing.now = false;
    await f.refresh();
    expect(f.snapshot().status.ok).toBe(true);
  });

  it("tells listeners of changes only", async () => {
    const cards = [pendingSend("ap-1")];
    const f = start(cards);
    await eventually(() => expect(f.snapshot().pending).toHaveLength(1));
    const seen: number[] = [];
    f.onChange((s) => seen.push(s.pending.length));
    await f.refresh();
    await f.refresh();
    expect(seen).toEqual([]);
    cards.push(pendingSend("ap-2"));
    await f.refresh();
    expect(seen).toEqual([2]);
  });
});
