import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ToolResult } from "@warden/contracts/events";
import { OBJECT_STORE_ARTIFACTS } from "@warden/contracts/subjects";
import { sha256Hex } from "@warden/contracts/json";
import { type AgentClient } from "@warden/sdk";
import { eventually } from "@warden/testing";
import { cardIn } from "../support/approval-cards.js";
import { runWarden, type CliRan } from "../support/cli.js";
import { parseCsv } from "../support/csv.js";
import { startTestWarden, type TestWarden } from "../support/warden.js";

/**
 * The auditor's views over a real Warden (every service, the support-desk demo): `trace` and
 * `audit` within 100 columns unless --wide, `audit --format csv`, `trace --html` and
 * `artifact get`, run as the built CLI with the auditor's credentials, as an auditor would.
 */
describe("auditor views: narrow trace and audit, CSV, the HTML timeline, artifacts", { timeout: 120_000 }, () => {
  let w: TestWarden;
  let bot: AgentClient;
  let dir: string;
  let since: string;
  let approved: ToolResult;
  let big: ToolResult;
  let read: ToolResult;
  const asAuditor = (...args: string[]): Promise<CliRan> => runWarden(w.nats.home.dir, ...args, "--as", "auditor");
  const lines = (text: string) => text.replace(/\n$/, "").split("\n");

  beforeAll(async () => {
    w = await startTestWarden({ demo: true });
    dir = mkdtempSync(join(tmpdir(), "warden-audit-views-"));
    await w.nats.home.addIdentity({ kind: "auditor", name: "auditor" });
    since = new Date(Date.now() - 1_000).toISOString();
    bot = await w.agent("support-bot");
    const alice = await w.approver("alice");

    read = await bot.call("kb.search", { query: "refund, \"quoted\"" }, { mode: "llm", intent: { goal: "answer the customer, who asked about a refund twice" } });
    expect(read).toMatchObject({ ok: true, status: "succeeded" });
    big = await bot.call("demo.big", {}, { mode: "llm" });
    expect(big).toMatchObject({ ok: true, truncated: true });
    const held = await bot.call("customer.message", { customerId: "C-views", text: "Your refund of 40 EUR was sent today. Reference R-881." }, { mode: "plan" });
    expect(held.status).toBe("awaiting_approval");
    const card = await cardIn(alice, (c) => c.callId === held.callId);
    expect(await alice.approve(card.approvalId, card.argsHash)).toMatchObject({ ok: true });
    approved = await bot.awaitCall(held.callId, "customer.message", { timeoutMs: 20_000 });
    expect(approved).toMatchObject({ ok: true, status: "succeeded" });
    // audit reads the read models' view of the calls: wait until every one has its end
    await eventually(async () => {
      const doc = JSON.parse((await asAuditor("audit", "--since", since, "--json")).out) as { calls: { callId: string; status: string }[] };
      expect(doc.calls.filter((c) => [read.callId, big.callId, approved.callId].includes(c.callId)).map((c) => c.status)).toEqual(["succeeded", "succeeded", "succeeded"]);
    });
  }, 90_000);

  afterAll(async () => {
    await w.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("prints a trace within 100 columns by default, hashes shortened, and every hash whole with --wide", async () => {
    const narrow = await asAuditor("trace", approved.callId);
    expect(narrow.code, narrow.err).toBe(0);
    for (const l of lines(narrow.out)) expect(l.length, l).toBeLessThanOrEqual(100);
    expect(narrow.out).toMatch(/ApprovalGranted +alice +approval=\S+ approver=alice/);
    expect(narrow.out).toMatch(/argsHash=sha256:[0-9a-f]{8}…/);
    expect(narrow.out).not.toMatch(/[0-9a-f]{64}/);

    const wide = await asAuditor("trace", approved.callId, "--wide");
    expect(wide.code, wide.err).toBe(0);
    expect(wide.out).toMatch(/ApprovalGranted +alice +approval=\S+ approver=alice argsHash=sha256:[0-9a-f]{64}/);
    expect(Math.max(...lines(wide.out).map((l) => l.length))).toBeGreaterThan(100);
  });

  it("prints the audit within 100 columns by default, call ids by their end, and every value whole with --wide", async () => {
    const narrow = await asAuditor("audit", "--since", since);
    expect(narrow.code, narrow.err).toBe(0);
    for (const l of lines(narrow.out)) expect(l.length, l).toBeLessThanOrEqual(100);
    expect(lines(narrow.out)[0]).toMatch(/^REQUESTED +CALL +PRINCIPAL +MODE +TOOL +STATUS +MS$/);
    expect(narrow.out).toContain(`…${approved.callId.slice(-8)}  support-bot`);
    expect(narrow.out).toMatch(/decision=require_approval rules=\S+ approver=alice/);
    expect(narrow.out).not.toContain(approved.callId);

    const wide = await asAuditor("audit", "--since", since, "--wide");
    for (const id of [read.callId, big.callId, approved.callId]) expect(wide.out).toContain(id);
    expect(wide.out).toMatch(/sha256:[0-9a-f]{64}/);
  });

  it("writes the audit as CSV with a header row, which parses back to the calls --json lists", async () => {
    const csv = await asAuditor("audit", "--since", since, "--format", "csv");
    expect(csv.code, csv.err).toBe(0);
    expect(csv.out).toContain("\r\n");
    const [header, ...records] = parseCsv(csv.out);
    expect(header!.slice(0, 3)).toEqual(["requestedAt", "callId", "domain"]);
    const byId = new Map(records.map((r) => [r[header!.indexOf("callId")]!, Object.fromEntries(header!.map((h, i) => [h, r[i]!]))]));
    const doc = JSON.parse((await asAuditor("audit", "--since", since, "--json")).out) as { calls: Record<string, unknown>[] };
    expect(records).toHaveLength(doc.calls.length);
    for (const call of doc.calls) {
      const row = byId.get(call["callId"] as string)!;
      expect(row, String(call["callId"])).toBeDefined();
      for (const k of ["requestedAt", "tool", "principal", "mode", "status", "decision", "argsHash", "correlationId"]) expect(row[k], k).toBe(call[k] ?? "");
      expect(row["ruleIds"]).toBe((call["ruleIds"] as string[]).join(" "));
      expect(row["durationMs"]).toBe(String(Math.round(call["durationMs"] as number)));
    }
    // a goal with a comma and quotes in the args came through whole
    expect(byId.get(read.callId)!["goal"]).toBe("answer the customer, who asked about a refund twice");
    expect(byId.get(approved.callId)!["approver"]).toBe("alice");
    expect(byId.get(big.callId)!["artifacts"]).toBe(big.artifacts![0]!.id);
  });

  it("fetches an artifact as the auditor, the bytes matching the sha256 its event recorded", async () => {
    const ref = big.artifacts![0]!;
    const out = join(dir, "big.json");
    const got = await asAuditor("artifact", "get", ref.id, "--out", out, "--json");
    expect(got.code, got.err).toBe(0);
    expect(JSON.parse(got.out)).toMatchObject({ ok: true, id: ref.id, callId: big.callId, sha256: ref.sha256, bytes: ref.bytes, verified: true, recordedBy: { type: "ToolCallFinished" } });
    const bytes = readFileSync(out);
    expect(bytes.byteLength).toBe(ref.bytes);
    expect(sha256Hex(bytes)).toBe(ref.sha256);
    // without --out a JSON artifact is printed
    const printed = await asAuditor("artifact", "get", ref.id);
    expect(printed.code, printed.err).toBe(0);
    expect(sha256Hex(printed.out.replace(/\n$/, ""))).toBe(ref.sha256);
  });

  it("refuses an artifact that is not what its event recorded (and writes nothing), one the store lost, and one no event records", async () => {
    const ref = big.artifacts![0]!;
    // any executor may write the store: one overwrites another call's output
    const store = await w.bus.objm.open(OBJECT_STORE_ARTIFACTS);
    await store.putBlob({ name: ref.id }, new TextEncoder().encode(JSON.stringify([{ forged: true }])));
    const out = join(dir, "tampered.json");
    const refused = await asAuditor("artifact", "get", ref.id, "--out", out);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain(`artifact ${ref.id} in ${OBJECT_STORE_ARTIFACTS} is not what call ${big.callId} recorded`);
    expect(refused.err).toContain(`recorded ${ref.sha256}`);
    expect(existsSync(out)).toBe(false);
    const printed = await asAuditor("artifact", "get", ref.id, "--json");
    expect(printed.code).toBe(1);
    expect(JSON.parse(printed.out)).toMatchObject({ ok: false, error: { code: "OUTPUT_INVALID" } });
    // an artifact its event records but the store no longer holds
    await store.delete(ref.id);
    const gone = await asAuditor("artifact", "get", ref.id);
    expect(gone.code).toBe(1);
    expect(gone.err).toContain(`records artifact ${ref.id}, but ${OBJECT_STORE_ARTIFACTS} has no object by that name`);
    // an id no event records is refused too: there is nothing to check it against
    const unknown = await asAuditor("artifact", "get", `${read.callId}.output.json`);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain(`no result of call ${read.callId} records an artifact`);
  });

  it("writes the call's timeline as one self-contained HTML page with its stages", async () => {
    const file = join(dir, "timeline.html");
    writeFileSync(file, "old");
    const r = await asAuditor("trace", approved.callId, "--html", file);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain(`wrote the timeline of call ${approved.callId} to ${file}`);
    const html = readFileSync(file, "utf8");
    expect(html.startsWith("<!doctype html>")).toBe(true);
    for (const type of ["ToolCallRequested", "ToolArgsValidated", "ToolPolicyChecked", "ApprovalRequested", "ApprovalGranted", "ToolCallStarted", "ToolCallFinished"]) {
      expect(html, type).toMatch(new RegExp(`<div class="row step k-\\w+" data-type="${type}"[^>]*>[\\s\\S]*?<span class="bar" style="left:[\\d.]+%;width:[\\d.]+%">`));
    }
    expect(html).toContain(`data-call-id="${approved.callId}"`);
    expect(html).toMatch(/<b>ApprovalGranted<\/b> alice/);
    expect(html).toContain("default-src 'none'");
    expect(html).not.toMatch(/<(script|link|img)\b/i);
  });
});
