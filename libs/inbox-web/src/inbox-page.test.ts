import { existsSync } from "node:fs";
import { ok } from "@warden/contracts/errors";
import { type PendingApproval } from "@warden/contracts/approval";
import { pendingSend } from "@warden/testing";
import { type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approverActions, type InboxActions } from "./inbox-actions.js";
import { type InboxServer } from "./inbox-server.js";
import { CHROMIUM, NO_CHROMIUM, openInboxInChromium, type InboxInChromium } from "../test-support/inbox-in-chromium.js";
import { standInCalls, standInClient } from "../test-support/stand-in-client.js";

// The card grows (description, flags, intent, chain, rule…) and decisions grow (edited args,
// session grants): the page must show fields it was not written for and draw the actions the
// server advertises. Here in Chromium, against the server with a stand-in approver client.
describe("the inbox page with a richer card and an action that edits args", () => {
  let inbox: InboxInChromium | undefined;
  let page: Page;
  let server: InboxServer;
  const posted: unknown[] = [];
  const rich: PendingApproval = Object.assign(pendingSend("rich-1"), {
    description: "Sends a message to the customer's inbox; it cannot be recalled.",
    flags: { destructive: false, openWorld: true, idempotent: false },
    intent: { goal: "Tell C-1 their refund went out", rationale: "They asked twice today" },
    args: { customerId: "C-1", text: "Your refund was sent." },
    riskReasons: ["reaches a person outside the company"],
    chain: ["alice", "agent.triage", "planner"],
    policyRule: "send-needs-a-person",
    onBehalfOf: "alice via agent.triage",
    noLiveExecutor: true,
    summary: "Send to C-1: Your refund was sent.",
    preview: {
      data: { ticketId: "T-9", before: { customerId: "C-1", text: "Your refund is on its way." }, after: { customerId: "C-1", text: "Your refund was sent." } },
      executorId: "e1",
      hash: "sha256:0",
    },
  });

  beforeAll(async () => {
    const client = standInClient([rich]);
    const base = approverActions(client);
    // an action the page has never heard of, asking for args: what wiring a new decision looks like
    const actions: InboxActions = {
      specs: [...base.specs, { kind: "approve-rewritten", label: "Approve rewritten", key: "x", tone: "approve", asks: "args" }],
      async run(body) {
        posted.push(body);
        return ok({ kind: "approve-rewritten", approvalId: "rich-1", callId: "call-rich-1", decision: "grant", reason: null });
      },
    };
    inbox = await openInboxInChromium({ client, actions, calls: standInCalls([], {}), viewport: { width: 1366, height: 900 } });
    if (inbox !== undefined) ({ page, server } = inbox);
  }, 60_000);
  afterAll(async () => inbox?.stop());

  it("lays out the fields it knows, lists the others, and posts edited args for an args action", async () => {
    expect(existsSync(CHROMIUM), NO_CHROMIUM).toBe(true);
    await page.goto(server.url);
    const c = page.locator("article.card", { hasText: "rich-1" });
    await c.waitFor();
    // the tool's summary for people comes first; the description (written for a model) is folded with the machine's detail
    expect(await c.locator("p.summary").textContent()).toBe("Send to C-1: Your refund was sent.");
    const details = c.locator("details.machine");
    expect(await details.getAttribute("open")).toBeNull();
    expect(await c.locator(".description").isVisible()).toBe(false);
    await details.locator("summary").click();
    await c.locator("details.machine .description", { hasText: "cannot be recalled" }).waitFor();
    expect(await details.locator(".facts.ids dd").allTextContents()).toEqual(["call-rich-1", rich.argsHash]);
    // the dry run as a before/after table: the changed field marked, the unchanged one muted, the rest listed
    const diff = c.locator(".preview .diff");
    expect(await diff.locator(".diff-count").textContent()).toBe("1 of 2 fields would change.");
    expect(await diff.locator("tr.changed").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-field")))).toEqual(["text"]);
    expect(await diff.locator("tr.same").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-field")))).toEqual(["customerId"]);
    expect(await diff.locator("tr.changed td.before").textContent()).toBe("Your refund is on its way.");
    expect(await diff.locator("tr.changed td.after").textContent()).toBe("Your refund was sent.");
    expect(await diff.locator(".diff-rest dd").allTextContents()).toEqual(["T-9"]);
    expect(await c.locator(".flag.flag-open-world").allTextContents()).toEqual(["open world"]);
    expect(await c.locator(".flag").count()).toBe(1);
    await c.locator(".intent", { hasText: "Tell C-1 their refund went out" }).waitFor();
    await c.locator(".risks", { hasText: "outside the company" }).waitFor();
    await c.locator(".on-behalf-of", { hasText: "alice via agent.triage" }).waitFor();
    await c.locator(".no-executor", { hasText: "No executor" }).waitFor();
    // the full args, not the preview
    expect(await c.locator(".args pre").textContent()).toContain('"text": "Your refund was sent."');
    // fields this page was not written for: named from their keys, values shown
    expect(await c.locator(".facts.more dt").allTextContents()).toEqual(["Chain", "Policy rule"]);
    expect(await c.locator(".facts.more .chip").allTextContents()).toEqual(["alice", "agent.triage", "planner"]);
    await c.locator(".facts.more dd", { hasText: "send-needs-a-person" }).waitFor();
    // the actions stay in view on a window shorter than the card, its top in view
    await page.setViewportSize({ width: 1366, height: 420 });
    await c.evaluate((node) => node.scrollIntoView({ block: "start" }));
    const approve = c.locator("button[data-action=approve]");
    const box = await approve.boundingBox();
    const cardBox = await c.boundingBox();
    expect(cardBox!.height).toBeGreaterThan(420);
    expect(box!.y + box!.height).toBeLessThanOrEqual(420);
    expect(await approve.isVisible()).toBe(true);
    await page.setViewportSize({ width: 1366, height: 900 });
    // the advertised action has its button and key
    await c.locator("button[data-action=approve-rewritten]", { hasText: "Approve rewritten" }).waitFor();
    await c.locator("button[data-action=approve-edited]", { hasText: "Edit and approve" }).waitFor();

    await c.focus();
    await page.keyboard.press("x");
    const editor = c.locator("form.panel textarea[name=args]");
    await editor.waitFor();
    expect(JSON.parse(await editor.inputValue())).toEqual({ customerId: "C-1", text: "Your refund was sent." });
    await editor.fill('{"customerId":"C-1","text":"Your refund of 40 EUR was sent."}');
    await page.keyboard.press("Control+Enter");
    await page.locator("#history li.h-granted", { hasText: "customer.message" }).waitFor();
    expect(posted).toEqual([
      { kind: "approve-rewritten", approvalId: "rich-1", argsHash: rich.argsHash, args: { customerId: "C-1", text: "Your refund of 40 EUR was sent." } },
    ]);
  }, 60_000);
});
