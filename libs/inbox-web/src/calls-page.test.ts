import { existsSync } from "node:fs";
import type { OwnCall } from "@warden/contracts/events";
import { buildTrace } from "@warden/projections";
import { syntheticCall } from "@warden/testing";
import { type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type InboxServer } from "./inbox-server.js";
import { CHROMIUM, NO_CHROMIUM, openInboxInChromium, type InboxInChromium } from "../test-support/inbox-in-chromium.js";
import { ownCall, standInCalls, standInClient } from "../test-support/stand-in-client.js";

/** What a caller may write into its args, and so into every view of the call. */
const HOSTILE = "<script>window.pwned = 1</script><img src=x onerror=\"window.pwned = 2\">";

// The Calls page in Chromium against the server with stand-ins (the whole-Warden test is
// test/e2e/inbox-calls.test.ts): rows, keys, escaping, the timeline and the way back.
describe("the inbox's Calls page", () => {
  let inbox: InboxInChromium | undefined;
  let page: Page;
  let server: InboxServer;
  const calls: OwnCall[] = [
    ownCall({ callId: "c-hostile", seq: 20, tool: "customer.message", mode: "plan", status: "rejected", argsPreview: JSON.stringify({ text: HOSTILE }), error: { code: "POLICY_DENIED", message: HOSTILE } }),
    ownCall({ callId: "c-approved", seq: 12, tool: "ticket.submit", mode: "plan", status: "succeeded", approver: "bob", durationMs: 4_200 }),
    ownCall({ callId: "c-read", seq: 5, status: "succeeded" }),
  ];
  const entries = (events: ReturnType<typeof syntheticCall>) => events.map((event, i) => ({ seq: i + 1, event }));
  const traces = {
    "c-approved": buildTrace(entries(syntheticCall({ callId: "c-approved", outcome: "approved", principal: "alice", tool: "ticket.submit", approver: "bob" })))!,
    "c-hostile": buildTrace(entries(syntheticCall({ callId: "c-hostile", outcome: "policy_denied", principal: "alice", tool: "customer.message", args: { text: HOSTILE } })))!,
  };

  beforeAll(async () => {
    inbox = await openInboxInChromium({ client: standInClient([]), calls: standInCalls(calls, traces), viewport: { width: 1280, height: 800 } });
    if (inbox !== undefined) ({ page, server } = inbox);
  }, 60_000);
  afterAll(async () => inbox?.stop());

  const rowIds = () => page.locator("#rows tr.call-row").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-call-id")));
  const selectedId = () => page.locator("#rows tr.call-row.selected").getAttribute("data-call-id");

  it("is one key away from the approvals, lists the calls newest first and shows what callers wrote as text", async () => {
    expect(existsSync(CHROMIUM), NO_CHROMIUM).toBe(true);
    await page.goto(server.url);
    await page.locator("#live[data-state=live]").waitFor();
    await page.keyboard.press("c");
    await page.waitForURL(/\/calls$/);
    await page.locator("#rows tr.call-row").first().waitFor();
    expect(await rowIds()).toEqual(["c-hostile", "c-approved", "c-read"]);
    expect(await page.locator("#person").textContent()).toBe("alice");
    expect(await page.locator(".views a[aria-current=page]").textContent()).toBe("Calls");

    const hostile = page.locator("tr[data-call-id=c-hostile]");
    expect(await hostile.locator(".args code").textContent()).toBe(JSON.stringify({ text: HOSTILE }));
    expect(await hostile.locator(".why").textContent()).toBe(`POLICY_DENIED: ${HOSTILE}`);
    expect(await hostile.locator(".state").textContent()).toBe("refused");
    // nothing the caller wrote became an element, and nothing of it ran
    expect(await page.locator("#rows script, #rows img").count()).toBe(0);
    expect(await page.evaluate("window.pwned")).toBeUndefined();
    const approved = page.locator("tr[data-call-id=c-approved]");
    expect(await approved.locator(".state-cell").textContent()).toBe("succeeded by bob");
    expect(await approved.locator(".duration").textContent()).toBe("4.2 s");
    // readable at 1280 wide: nothing runs off the side
    expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(1280);
  }, 60_000);

  it("moves with j / k and opens the selected call's timeline with Enter; the timeline escapes the args too", async () => {
    expect(existsSync(CHROMIUM), NO_CHROMIUM).toBe(true);
    await page.goto(`http://127.0.0.1:${server.port}/calls`);
    await page.locator("#rows tr.call-row").first().waitFor();
    expect(await selectedId()).toBe("c-hostile");
    await page.keyboard.press("j");
    expect(await selectedId()).toBe("c-approved");
    expect(await page.evaluate("document.activeElement.closest('tr').dataset.callId")).toBe("c-approved");
    await page.keyboard.press("j");
    await page.keyboard.press("ArrowUp");
    expect(await selectedId()).toBe("c-approved");
    await page.keyboard.press("Enter");
    await page.waitForURL(/\/calls\/c-approved$/);
    for (const type of ["ToolCallRequested", "ToolArgsValidated", "ToolPolicyChecked", "ApprovalRequested", "ApprovalGranted", "ToolCallStarted", "ToolCallFinished"]) {
      await page.locator(`.row.step[data-type=${type}]`).first().waitFor();
    }
    expect(await page.locator("h1").textContent()).toContain("ticket.submit");
    expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(1280);
    // the way back is the first thing Tab reaches
    await page.keyboard.press("Tab");
    expect(await page.evaluate("document.activeElement.className")).toBe("back");
    await page.keyboard.press("Enter");
    await page.waitForURL(/\/calls$/);

    await page.goto(`http://127.0.0.1:${server.port}/calls/c-hostile`);
    await page.locator(".row.step[data-type=ToolCallRejected]").waitFor();
    expect(await page.locator(".row.step[data-type=ToolCallRequested] .what").textContent()).toContain("<script>window.pwned = 1</script>");
    expect(await page.locator("main script, main img").count()).toBe(0);
    expect(await page.evaluate("window.pwned")).toBeUndefined();
  }, 60_000);

  it("refreshes by itself: a new call appears without a reload", async () => {
    expect(existsSync(CHROMIUM), NO_CHROMIUM).toBe(true);
    await page.goto(`http://127.0.0.1:${server.port}/calls`);
    await page.locator("#rows tr.call-row").first().waitFor();
    await page.evaluate("window.callsMark = 7");
    calls.unshift(ownCall({ callId: "c-newer", seq: 30, status: "awaiting_approval", mode: "plan" }));
    await page.locator("tr[data-call-id=c-newer] .state", { hasText: "waiting for approval" }).waitFor({ timeout: 15_000 });
    expect(await rowIds()).toEqual(["c-newer", "c-hostile", "c-approved", "c-read"]);
    expect(await page.evaluate("window.callsMark")).toBe(7);
    // a key to the approvals, and back by the link
    await page.keyboard.press("a");
    await page.waitForURL(/\/$/);
    await page.locator(".views a[href='/calls']").click();
    await page.waitForURL(/\/calls$/);
  }, 60_000);
});
