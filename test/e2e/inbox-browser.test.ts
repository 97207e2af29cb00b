import { join } from "node:path";
import { readOutbox } from "@warden/example-support-desk";
import { toModelMessage } from "@warden/contracts/events";
import { callEvents, eventTypes } from "@warden/testing";
import { describe, expect, it } from "vitest";
import { runWarden } from "../support/cli.js";
import { screenshotsDir, useInboxInChromium } from "../support/inbox.js";
import { usualPrincipals } from "../support/usual-principals.js";

// screenshots for docs/approvals.md: WARDEN_UPDATE_SCREENSHOTS=1 writes them into docs/images
const SHOTS = screenshotsDir("warden-inbox-shots-");

describe("warden inbox in a real headless Chromium", () => {
  const t = useInboxInChromium({
    person: "alice",
    viewport: { width: 1440, height: 900 },
    policy: {
      version: "e2e-inbox",
      principals: usualPrincipals("alice", "support-bot", "planner"),
      llm: { showWrite: ["ticket.fill", "ticket.submit"] },
      approvalTtlSeconds: { write: 900, send: 900 },
    },
  }, async (w) => ({
    planner: await w.agent("planner"),
    bot: await w.agent("support-bot"),
  }));

  const card = (text: string) => t.page.locator("article.card", { hasText: text });
  const selectedText = async () => (await t.page.locator("article.card.selected").textContent()) ?? "";
  const focusedIsSelected = async () => (await t.page.locator("article.card.selected:focus").count()) === 1;

  it("shows a send live without reload, approves it with edited args from the keyboard, the edited args run, and a denial's reason typed in the page reaches the model", async () => {
    await t.page.goto(t.inbox.url);
    // the token is traded for a cookie and dropped from the address bar
    expect(t.page.url()).not.toContain("token=");
    await t.page.locator("#person", { hasText: "alice" }).waitFor();
    await t.page.locator("#live[data-state=live]").waitFor();
    await t.page.locator("#empty").waitFor();
    // marks this document: a reload would lose it
    await t.page.evaluate("window.inboxMark = 42");

    const message = { customerId: "C-1042", text: "Your refund of 40 EUR was sent today." };
    const sending = t.planner.call("customer.message", message, { mode: "plan", wait: true, timeoutMs: 60_000 });
    await card("C-1042").waitFor({ timeout: 15_000 });
    const ticket = { title: "Refund not received", body: "Customer says the refund never arrived.", customerId: "C-77" };
    const submitting = t.bot.call("ticket.submit", ticket, { mode: "llm", wait: true, timeoutMs: 60_000 });
    await card("C-77").waitFor({ timeout: 15_000 });
    expect(await t.page.evaluate("window.inboxMark")).toBe(42);
    expect(await t.page.locator("#pending-count").textContent()).toBe("2");
    await expect.poll(() => t.page.title()).toContain("(2)");
    await card("C-1042").locator(".grade", { hasText: "send" }).waitFor();
    await card("C-1042").getByText("planner").first().waitFor();
    // the tool's own summary line (customer.message's approvalSummary) comes first, made from the args the grant binds
    expect(await card("C-1042").locator(".card-head + p.summary").textContent()).toBe(`Send to C-1042: ${message.text}`);
    // only what the policy would accept: a send is never approved for the session here (sessionGrants: write), the write may be
    expect(await card("C-1042").locator("button[data-action=approve-session]").count()).toBe(0);
    await card("C-77").locator("button[data-action=approve-session]").waitFor();
    await t.page.screenshot({ path: join(SHOTS, "inbox-pending.png") });

    // the card's call id opens the call's timeline, where the wait for alice keeps counting (the page reloads itself)
    const href = await card("C-1042").locator("details.machine a.call-id").getAttribute("href");
    const timeline = await t.page.context().newPage();
    try {
      await timeline.goto(new URL(href!, t.inbox.url).href);
      await timeline.locator(".row.step.waiting .label", { hasText: "waiting for alice" }).waitFor();
      expect(await timeline.locator(".row.step.waiting .dur").textContent()).toMatch(/so far$/);
      expect(await timeline.locator('meta[http-equiv="refresh"]').getAttribute("content")).toBe("5");
    } finally {
      await timeline.close();
    }

    // j / k (and arrows) move the selection; the selected card has the focus
    await t.page.keyboard.press("j");
    expect(await selectedText()).toContain("C-77");
    expect(await focusedIsSelected()).toBe(true);
    await t.page.keyboard.press("ArrowUp");
    expect(await selectedText()).toContain("C-1042");
    await t.page.keyboard.press("k");
    expect(await selectedText()).toContain("C-1042");
    expect(await focusedIsSelected()).toBe(true);
    // its key says why instead of opening a panel the approver would refuse
    await t.page.keyboard.press("s");
    await t.page.locator("#toast", { hasText: "Not for the session: the policy document allows session grants for write calls only, not send" }).waitFor();
    expect(await card("C-1042").locator("select[name=ttl]").count()).toBe(0);

    // a opens the approve panel with the note field focused; Esc closes it again
    await t.page.keyboard.press("a");
    await card("C-1042").locator("form.panel-approve input[name=reason]").waitFor();
    expect(await card("C-1042").locator("input[name=reason]:focus").count()).toBe(1);
    await t.page.keyboard.press("Escape");
    await card("C-1042").locator("form.panel-approve").waitFor({ state: "hidden" });

    // e opens the args editor (the card's args, focused); Ctrl+Enter approves the edited args
    await t.page.keyboard.press("e");
    const editor = card("C-1042").locator("form.panel textarea[name=args]");
    await editor.waitFor();
    expect(await card("C-1042").locator("textarea[name=args]:focus").count()).toBe(1);
    expect(JSON.parse(await editor.inputValue())).toEqual(message);
    const edited = { customerId: "C-1042", text: "Your refund of 40 EUR was sent today. Reference R-881." };
    await editor.fill(JSON.stringify(edited, null, 2));
    await t.page.keyboard.press("Control+Enter");
    await card("C-1042").waitFor({ state: "detached", timeout: 15_000 });
    await t.page.locator("#history li.h-granted", { hasText: "customer.message" }).waitFor();

    const sent = await sending;
    expect(sent, JSON.stringify(sent)).toMatchObject({ ok: true, status: "succeeded" });
    const events = await callEvents(t.w.bus, sent.callId);
    expect(eventTypes(events)).toEqual(expect.arrayContaining(["ApprovalRequested", "ApprovalGranted", "ToolCallStarted", "ToolCallFinished"]));
    const granted = events.find((e) => e.type === "ApprovalGranted");
    expect(granted?.type === "ApprovalGranted" && granted.data.approver).toBe("alice");
    // the edit is recorded beside the original request, and the edited args are what ran
    expect(granted?.type === "ApprovalGranted" && granted.data.edit?.args).toEqual(edited);
    const requested = events.find((e) => e.type === "ToolCallRequested");
    expect(requested?.type === "ToolCallRequested" && requested.data.args).toEqual(message);
    expect((await readOutbox(t.w.bus)).filter((m) => m.customerId === "C-1042").map((m) => m.text)).toEqual([edited.text]);
    // the operator's trace names alice as the approver, shows the edited args and the call as succeeded
    const trace = await runWarden(t.w.nats.home.dir, "trace", sent.callId, "--wide");
    expect(trace.code, trace.err).toBe(0);
    expect(trace.out).toContain("alice");
    expect(trace.out).toContain(`editedArgs=${JSON.stringify(edited)}`);
    expect(trace.out).toMatch(/succeeded/i);

    // the other request is still pending: d, a reason typed in the page, Enter denies it
    expect(await selectedText()).toContain("C-77");
    await t.page.keyboard.press("d");
    const reasonField = card("C-77").locator("form.panel-deny input[name=reason]");
    await reasonField.waitFor();
    // no reason, no denial: the page says so and sends nothing
    await t.page.keyboard.press("Enter");
    await card("C-77").locator(".panel-error", { hasText: "reason" }).waitFor();
    const reason = "Duplicate of T-12; reply on the existing ticket instead";
    await t.page.keyboard.type(reason);
    await t.page.screenshot({ path: join(SHOTS, "inbox-deny.png") });
    await t.page.keyboard.press("Enter");
    await card("C-77").waitFor({ state: "detached", timeout: 15_000 });
    await t.page.locator("#history li.h-denied", { hasText: reason }).waitFor();
    await t.page.locator("#empty").waitFor();

    const denied = await submitting;
    expect(denied).toMatchObject({ ok: false, status: "denied", error: { code: "APPROVAL_DENIED" } });
    expect(denied.error?.message).toContain(reason);
    // what the agent hands its model back names the reason, so the model can correct itself
    expect(toModelMessage(denied)).toContain(reason);
    expect(eventTypes(await callEvents(t.w.bus, denied.callId))).not.toContain("ToolCallStarted");
    await t.page.mouse.move(0, 0);
    await t.page.screenshot({ path: join(SHOTS, "inbox-decided.png") });
    expect(t.inbox.child.exitCode, t.inbox.output()).toBeNull();

    // a decided card links to its call's timeline: the planner's call, read through the approver as the person who decided it
    await t.page.locator("#history li.h-granted", { hasText: "customer.message" }).locator("a.h-timeline").click();
    await t.page.waitForURL(new RegExp(`/calls/${sent.callId}$`));
    await t.page.locator(".row.step[data-type=ToolCallFinished]").waitFor();
    expect(await t.page.locator(".row.step[data-type=ApprovalGranted] .label").textContent()).toContain("alice");
    expect(await t.page.locator("a.back").getAttribute("href")).toBe("/");
  }, 120_000);

  it("approves a write for the session, keeping only the customer: a later call for that customer runs without a card, and revoking it from the page brings cards back", async () => {
    await t.page.goto(t.inbox.url);
    await t.page.locator("#live[data-state=live]").waitFor();
    const ticket = (title: string, customerId = "C-5") => t.bot.call("ticket.submit", { title, body: "follow up", customerId }, { mode: "llm", wait: true, timeoutMs: 60_000 });
    const first = ticket("Blender broke");
    await card("Blender broke").waitFor({ timeout: 15_000 });
    await card("Blender broke").click();
    // s opens the session panel: how long, and which args later calls must keep (all, until freed)
    await t.page.keyboard.press("s");
    const panel = card("Blender broke").locator("form.panel");
    await panel.locator("select[name=ttl]").waitFor();
    expect(await card("Blender broke").locator("select[name=ttl]:focus").count()).toBe(1);
    expect(await panel.locator("input[name=keep]:checked").evaluateAll((boxes) => boxes.map((b) => b.getAttribute("value") ?? "").sort())).toEqual(["body", "customerId", "title"]);
    await panel.locator("input[name=keep][value=title]").uncheck();
    await panel.locator("input[name=keep][value=body]").uncheck();
    await panel.locator("button[type=submit]").scrollIntoViewIfNeeded();
    await t.page.screenshot({ path: join(SHOTS, "inbox-session.png") });
    await panel.locator("button[type=submit]").click();
    await card("Blender broke").waitFor({ state: "detached", timeout: 15_000 });
    expect(await first).toMatchObject({ ok: true, status: "succeeded" });
    const listed = t.page.locator("#sessions li", { hasText: "ticket.submit" });
    await listed.locator(".s-covers", { hasText: 'customerId = "C-5"' }).waitFor();
    await t.page.screenshot({ path: join(SHOTS, "inbox-sessions.png") });

    // same customer, other title: granted by the session, no card shown
    const second = await ticket("Kettle leaks");
    expect(second).toMatchObject({ ok: true, status: "succeeded" });
    const grant = (await callEvents(t.w.bus, second.callId)).find((e) => e.type === "ApprovalGranted");
    expect(grant?.type === "ApprovalGranted" && grant.data).toMatchObject({ approver: "alice", bySession: { grantId: (await first).callId } });
    expect(await card("Kettle leaks").count()).toBe(0);

    // revoked from the page: the list empties and the next call asks again
    await listed.locator("button[data-action=revoke-session]").click();
    await t.page.locator("#sessions-box").waitFor({ state: "hidden" });
    const third = ticket("Toaster smokes");
    await card("Toaster smokes").waitFor({ timeout: 15_000 });
    await card("Toaster smokes").click();
    await t.page.keyboard.press("d");
    await card("Toaster smokes").locator("form.panel-deny input[name=reason]").fill("ask the customer for a photo first");
    await t.page.keyboard.press("Enter");
    expect(await third).toMatchObject({ ok: false, status: "denied" });
  }, 120_000);

  it("shows a write's dry run as what would change, folds the machine's detail, and keeps the actions in view", async () => {
    // a plan may write on its own: the draft has a priority before the model asks for a summary
    const ticketId = `T-${Date.now()}`;
    expect(await t.planner.call("ticket.fill", { ticketId, fields: { priority: "high" } }, { mode: "plan", scope: "ticket_page", wait: true, timeoutMs: 60_000 })).toMatchObject({ ok: true, status: "succeeded" });
    await t.page.goto(t.inbox.url);
    await t.page.locator("#live[data-state=live]").waitFor();
    const filling = t.bot.call("ticket.fill", { ticketId, fields: { priority: "high", summary: "blender broke" } }, { mode: "llm", scope: "ticket_page", wait: true, timeoutMs: 60_000 });
    const c = card(ticketId);
    await c.waitFor({ timeout: 15_000 });
    const diff = c.locator(".preview .diff");
    await diff.waitFor();
    expect(await diff.locator(".diff-count").textContent()).toBe("1 of 2 fields would change.");
    expect(await diff.locator("tr.changed").evaluateAll((rows) => rows.map((r) => [r.getAttribute("data-field"), r.querySelector(".before")?.textContent, r.querySelector(".after")?.textContent]))).toEqual([
      ["summary", "(none)", "blender broke"],
    ]);
    expect(await diff.locator("tr.same").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-field")))).toEqual(["priority"]);
    // the call id and args hash are there for whoever needs them, folded
    expect(await c.locator("details.machine").getAttribute("open")).toBeNull();
    expect(await c.locator("details.machine .call-id").isVisible()).toBe(false);
    await c.click();
    await t.page.mouse.move(0, 0);
    await t.page.screenshot({ path: join(SHOTS, "inbox-dry-run.png") });
    // on a short window the actions stay at its foot while the card's top is read
    await t.page.setViewportSize({ width: 1440, height: 480 });
    await c.evaluate((node) => node.scrollIntoView({ block: "start" }));
    const approve = c.locator("button[data-action=approve]");
    const box = await approve.boundingBox();
    expect(box!.y + box!.height).toBeLessThanOrEqual(480);
    await t.page.setViewportSize({ width: 1440, height: 900 });
    await t.page.keyboard.press("a");
    await c.locator("form.panel-approve input[name=reason]").waitFor();
    await t.page.keyboard.press("Enter");
    expect(await filling).toMatchObject({ ok: true, status: "succeeded" });
  }, 120_000);

  it("answers the API without the token 401, and a POST with the cookie but no CSRF secret 403", async () => {
    const anonymous = await fetch(new URL("/api/state", t.inbox.url));
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ ok: false, error: { code: "FORBIDDEN", retryable: false } });
    // the page's own cookie is not enough to decide: a request must echo the CSRF secret too
    const refused = await t.page.evaluate(async () => {
      const res = await fetch("/api/actions", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
      return { status: res.status, body: (await res.json()) as unknown };
    });
    expect(refused).toMatchObject({ status: 403, body: { ok: false, error: { code: "FORBIDDEN" } } });
  });

  it("opens once: the printed URL in a second browser is refused, and the first holds an HttpOnly, SameSite=Strict session cookie that expires", async () => {
    const session = (await t.page.context().cookies()).find((c) => c.name.startsWith("warden_inbox_"));
    expect(session).toMatchObject({ httpOnly: true, sameSite: "Strict", path: "/" });
    // the URL's token is not the session's secret
    expect(t.inbox.url).not.toContain(session!.value);
    // renewed by each answer: twelve hours from the last one
    const hours = (session!.expires - Date.now() / 1000) / 3600;
    expect(hours).toBeGreaterThan(11.9);
    expect(hours).toBeLessThanOrEqual(12);
    expect(await t.page.evaluate("document.cookie")).not.toContain(session!.name);
    // someone else opening the same URL later (shell history, a screenshot): refused
    const other = await t.browser.newContext();
    try {
      const answer = await (await other.newPage()).goto(t.inbox.url);
      expect(answer?.status()).toBe(401);
      expect(await answer?.json()).toMatchObject({ ok: false, error: { code: "FORBIDDEN", details: { reason: "TOKEN_USED" } } });
      expect(await other.cookies()).toEqual([]);
    } finally {
      await other.close();
    }
  });
});
