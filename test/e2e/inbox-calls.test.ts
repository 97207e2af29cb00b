import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { APPROVED_CALL_EVENT_TYPES } from "@warden/testing";
import { screenshotsDir, useInboxInChromium } from "../support/inbox.js";
import { usualPrincipals } from "../support/usual-principals.js";

// screenshots for docs/audit.md: WARDEN_UPDATE_SCREENSHOTS=1 writes them into docs/images
const SHOTS = screenshotsDir("warden-calls-shots-");

/** A query as a caller may write it: it must reach every view as text. */
const HOSTILE_QUERY = '<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2"> refund policy';


describe("the web inbox's Calls page over real services, in a real headless Chromium", () => {
  const t = useInboxInChromium({
    person: "alice",
    viewport: { width: 1280, height: 800 },
    policy: {
      version: "e2e-calls",
      principals: usualPrincipals("alice", "support-bot"),
      approvalTtlSeconds: { write: 900, send: 900 },
    },
  }, async (w) => ({
    // alice calls tools herself (mode human: a send waits for a person, and she may confirm her own)
    alice: await w.person("alice"),
    bot: await w.agent("support-bot"),
  }));

  const row = (callId: string) => t.page.locator(`#rows tr.call-row[data-call-id="${callId}"]`);

  it("lists alice's calls (an approved send, a plain read) newest first and opens the send's timeline with every stage", async () => {
    await t.page.goto(t.inbox.url);
    await t.page.locator("#live[data-state=live]").waitFor();

    const read = await t.alice.call("kb.search", { query: HOSTILE_QUERY }, { mode: "human", wait: true, timeoutMs: 60_000 });
    expect(read, JSON.stringify(read)).toMatchObject({ ok: true, status: "succeeded" });
    // another principal's call: alice's inbox must not list it nor open it
    const others = await t.bot.call("kb.search", { query: "shipping times" }, { mode: "llm", wait: true, timeoutMs: 60_000 });
    expect(others).toMatchObject({ ok: true, status: "succeeded" });

    // a send in human mode waits for a person; alice confirms her own from the approvals view
    const message = { customerId: "C-2041", text: "Your replacement ships tomorrow." };
    const sending = t.alice.call("customer.message", message, { mode: "human", wait: true, timeoutMs: 60_000 });
    const card = t.page.locator("article.card", { hasText: "C-2041" });
    await card.waitFor({ timeout: 15_000 });
    await card.click();
    await t.page.keyboard.press("a");
    await card.locator("form.panel-approve input[name=reason]").waitFor();
    await t.page.keyboard.press("Enter");
    await card.waitFor({ state: "detached", timeout: 15_000 });
    const sent = await sending;
    expect(sent, JSON.stringify(sent)).toMatchObject({ ok: true, status: "succeeded" });

    // c: the Calls view; both calls listed once the projector has folded them, the newest first
    await t.page.keyboard.press("c");
    await t.page.waitForURL(/\/calls$/);
    await row(sent.callId).and(t.page.locator("[data-status=succeeded]")).waitFor({ timeout: 20_000 });
    await row(read.callId).and(t.page.locator("[data-status=succeeded]")).waitFor({ timeout: 20_000 });
    const ids = await t.page.locator("#rows tr.call-row").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-call-id")));
    expect(ids).toEqual([sent.callId, read.callId]);
    expect(ids).not.toContain(others.callId);
    expect(await row(sent.callId).locator(".tool a").textContent()).toBe("customer.message");
    expect(await row(sent.callId).locator(".principal").textContent()).toBe("alice");
    expect(await row(sent.callId).locator(".mode").textContent()).toBe("human");
    expect(await row(sent.callId).locator(".state-cell").textContent()).toBe("succeeded by alice");
    expect(await row(read.callId).locator(".tool a").textContent()).toBe("kb.search");
    // what alice wrote is shown as she wrote it, and none of it ran
    expect(await row(read.callId).locator(".args code").textContent()).toContain(HOSTILE_QUERY.replaceAll('"', '\\"'));
    expect(await t.page.locator("#rows script, #rows img").count()).toBe(0);
    expect(await t.page.evaluate("window.pwned")).toBeUndefined();
    await t.page.mouse.move(0, 0);
    await t.page.screenshot({ path: join(SHOTS, "inbox-calls.png") });

    // Enter opens the selected (newest) call: the timeline warden trace --html draws, every stage on it
    await t.page.keyboard.press("Enter");
    await t.page.waitForURL(new RegExp(`/calls/${sent.callId}$`));
    // the timeline names each row by its event type: every stage of the approved send is there
    for (const type of APPROVED_CALL_EVENT_TYPES) await t.page.locator(`.row.step[data-type=${type}]`).first().waitFor();
    expect(await t.page.locator(".row.step").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-type")))).toEqual(APPROVED_CALL_EVENT_TYPES);
    expect(await t.page.locator("h1").textContent()).toContain("customer.message");
    expect(await t.page.locator(".row.step[data-type=ApprovalGranted] .label").textContent()).toContain("alice");
    expect(await t.page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(1280);
    await t.page.screenshot({ path: join(SHOTS, "inbox-call-timeline.png"), fullPage: true });

    // the read's timeline shows the query as text too
    await t.page.goto(new URL(`/calls/${read.callId}`, t.inbox.url).href);
    await t.page.locator(".row.step[data-type=ToolCallFinished]").waitFor();
    expect(await t.page.locator(".row.step[data-type=ToolCallRequested] .what").textContent()).toContain("<script>window.pwned = 1</script>");
    expect(await t.page.locator("main script, main img").count()).toBe(0);
    expect(await t.page.evaluate("window.pwned")).toBeUndefined();
    expect(t.inbox.child.exitCode, t.inbox.output()).toBeNull();
  }, 120_000);

  it("cannot open another principal's call: the registry answers alice's credentials as if there were none", async () => {
    const others = await t.bot.call("kb.search", { query: "opening hours" }, { mode: "llm", wait: true, timeoutMs: 60_000 });
    expect(others).toMatchObject({ ok: true, status: "succeeded" });
    const answer = await t.page.goto(new URL(`/calls/${others.callId}`, t.inbox.url).href);
    expect(answer?.status()).toBe(404);
    expect(await t.page.locator(".error").getAttribute("data-code")).toBe("NOT_FOUND");
    expect(await t.page.locator(".row.step").count()).toBe(0);
  });
});
