import { request, type IncomingHttpHeaders } from "node:http";
import type { PendingApproval } from "@warden/contracts/approval";
import { buildTrace } from "@warden/projections";
import { eventually, pendingSend, syntheticCall } from "@warden/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CSRF_HEADER } from "./domain/request-guard.js";
import { approverActions } from "./inbox-actions.js";
import { startInboxFeed, type InboxFeed } from "./inbox-feed.js";
import { startInboxServer, type InboxServer } from "./inbox-server.js";
import { ownCall, standInCalls, standInClient } from "../test-support/stand-in-client.js";

// The approver client is the server's only collaborator; here a stand-in that answers from a list,
// so these tests are about HTTP: the guards, the routes and the shape of every error.

interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

function call(port: number, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method, path, headers: { host: `127.0.0.1:${port}`, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const HOSTILE = '<script>alert(1)</script><img src=x onerror=alert(2)>';
const CALLS = [
  ownCall({ callId: "c-old", seq: 3, status: "succeeded" }),
  ownCall({ callId: "c-new", seq: 9, tool: "customer.message", status: "awaiting_approval", mode: "plan", argsPreview: JSON.stringify({ text: HOSTILE }) }),
];
const entries = (events: ReturnType<typeof syntheticCall>) => events.map((event, i) => ({ seq: i + 1, event }));
const TRACES = { "c-new": buildTrace(entries(syntheticCall({ callId: "c-new", outcome: "approved", principal: "alice", tool: "customer.message", args: { text: HOSTILE } })))! };
/** Another principal's call that alice approved: the approver shows her its timeline. */
const DECIDED = { "c-bots": buildTrace(entries(syntheticCall({ callId: "c-bots", outcome: "approved", principal: "support-bot", tool: "customer.message", args: { text: "hi" } })))! };

describe("the inbox server", () => {
  let cards: PendingApproval[];
  let client: ReturnType<typeof standInClient>;
  let feed: InboxFeed;
  let server: InboxServer;
  let cookie: string;
  /** The answer to the printed URL's first use, in which its token was traded for the session cookie. */
  let traded: Answer;
  let clock: number;
  const token = "the-run-token";
  const IDLE_MS = 60 * 60 * 1000;

  beforeEach(async () => {
    cards = [pendingSend("ap-1"), pendingSend("ap-2")];
    client = standInClient(cards);
    feed = startInboxFeed({ client, refreshMs: 60_000 });
    clock = 1_000_000;
    server = await startInboxServer({ feed, actions: approverActions(client), calls: standInCalls(CALLS, TRACES, "alice", DECIDED), token, sessionIdleMs: IDLE_MS, now: () => clock });
    traded = await call(server.port, "GET", `/?token=${token}`);
    cookie = traded.headers["set-cookie"]![0]!.split(";")[0]!;
    await eventually(() => expect(feed.snapshot().pending).toHaveLength(2));
  });
  afterEach(async () => {
    await server.stop();
    await feed.stop();
  });

  const json = (a: Answer) => JSON.parse(a.body) as { ok: boolean; value?: Record<string, unknown>; error?: { code: string; message: string; retryable: boolean; details?: Record<string, unknown> } };
  const csrf = async () => (json(await call(server.port, "GET", "/api/session", { cookie })).value as { csrf: string }).csrf;
  const post = async (body: unknown, extra: Record<string, string> = {}) =>
    call(server.port, "POST", "/api/actions", { cookie, "content-type": "application/json", [CSRF_HEADER]: await csrf(), ...extra }, typeof body === "string" ? body : JSON.stringify(body));

  it("prints a URL on 127.0.0.1 whose token it trades, once, for an expiring HttpOnly, SameSite=Strict session cookie", async () => {
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/?token=${token}`);
    expect(traded.status).toBe(303);
    expect(traded.headers.location).toBe("/");
    const [pair, ...attributes] = traded.headers["set-cookie"]![0]!.split("; ");
    expect(pair).toMatch(new RegExp(`^warden_inbox_${server.port}=[A-Za-z0-9_-]{43}$`));
    // the cookie is a session of its own, not the URL's token
    expect(pair).not.toContain(token);
    expect(attributes).toEqual(["Path=/", "HttpOnly", "SameSite=Strict", `Max-Age=${IDLE_MS / 1000}`]);
    // the URL again, as from shell history or a screenshot: refused, and no second session
    for (const path of [`/?token=${token}`, `/calls?token=${token}`, `/api/state?token=${token}`]) {
      const again = await call(server.port, "GET", path);
      expect(again.status, path).toBe(401);
      expect(again.headers["set-cookie"], path).toBeUndefined();
      expect(json(again), path).toMatchObject({ ok: false, error: { code: "FORBIDDEN", details: { reason: "TOKEN_USED" }, message: expect.stringContaining("restart `warden inbox`") as string } });
    }
    // the browser that holds the session opening the URL again just lands on the clean page
    const reopened = await call(server.port, "GET", `/?token=${token}`, { cookie });
    expect(reopened.status).toBe(303);
    expect(reopened.headers.location).toBe("/");
    const page = await call(server.port, "GET", "/", { cookie });
    expect(page.status).toBe(200);
    expect(page.headers["content-type"]).toContain("text/html");
    expect(page.body).toContain('<script src="/inbox.js"');
    expect(page.headers["content-security-policy"]).toContain("frame-ancestors 'none'");
  });

  it("ends a session after its idle time without a request: its cookie is refused, each request renews it", async () => {
    clock += IDLE_MS - 1;
    const used = await call(server.port, "GET", "/api/state", { cookie });
    expect(used.status).toBe(200);
    // every answer renews the cookie's lifetime with the session's
    expect(used.headers["set-cookie"]?.[0]).toBe(`${cookie}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${IDLE_MS / 1000}`);
    clock += IDLE_MS - 1;
    expect((await call(server.port, "GET", "/api/state", { cookie })).status).toBe(200);
    clock += IDLE_MS;
    const late = await call(server.port, "GET", "/api/state", { cookie });
    expect(late.status).toBe(401);
    expect(json(late)).toMatchObject({ ok: false, error: { code: "FORBIDDEN", details: { reason: "SESSION_EXPIRED" } } });
    expect((await call(server.port, "GET", `/?token=${token}`)).status).toBe(401);
  });

  it("answers a foreign Host with 403 and a structured error, even with the token (DNS rebinding)", async () => {
    const a = await call(server.port, "GET", `/api/state?token=${token}`, { host: `attacker.example:${server.port}`, cookie });
    expect(a.status).toBe(403);
    expect(a.headers["content-type"]).toContain("application/json");
    expect(json(a)).toEqual({ ok: false, error: { code: "FORBIDDEN", message: expect.stringContaining("attacker.example") as string, retryable: false } });
  });

  it("answers every path without the token with 401 and a structured error, the page and its script too", async () => {
    for (const path of ["/", "/inbox.js", "/api/state", "/api/events", "/api/session", "/?token=wrong", "/calls", "/calls.js", "/api/calls", "/calls/c-new"]) {
      const a = await call(server.port, "GET", path);
      expect(a.status, path).toBe(401);
      expect(json(a), path).toMatchObject({ ok: false, error: { code: "FORBIDDEN", retryable: false } });
    }
  });

  it("refuses a POST without the CSRF secret, of another origin or not JSON, and decides nothing", async () => {
    const body = JSON.stringify({ kind: "approve", approvalId: "ap-1", argsHash: cards[0]!.argsHash });
    const noCsrf = await call(server.port, "POST", "/api/actions", { cookie, "content-type": "application/json" }, body);
    expect(noCsrf.status).toBe(403);
    expect(json(noCsrf).error).toMatchObject({ code: "FORBIDDEN", message: expect.stringContaining(CSRF_HEADER) as string });
    expect((await post(body, { origin: "http://attacker.example" })).status).toBe(403);
    const form = await post(body, { "content-type": "application/x-www-form-urlencoded" });
    expect(form.status).toBe(415);
    expect(json(form).error).toMatchObject({ code: "INVALID_REQUEST" });
    expect(client.decisions).toEqual([]);
  });

  it("approves with the CSRF secret: the card leaves the state and the history says who decided", async () => {
    const a = await post({ kind: "approve", approvalId: "ap-1", argsHash: cards[0]!.argsHash });
    expect(a.status).toBe(200);
    expect(json(a)).toEqual({ ok: true, value: { kind: "approve", approvalId: "ap-1", callId: "call-ap-1", decision: "grant", reason: null } });
    expect(client.decisions).toEqual(["grant ap-1"]);
    const state = json(await call(server.port, "GET", "/api/state", { cookie })).value as { pending: PendingApproval[]; history: { approvalId: string; outcome: string; by: string }[] };
    expect(state.pending.map((p) => p.approvalId)).toEqual(["ap-2"]);
    expect(state.history[0]).toMatchObject({ approvalId: "ap-1", outcome: "granted", by: "alice" });
  });

  it("answers bad bodies, refusals and unknown routes with structured errors and their statuses", async () => {
    const cases: [Answer, number, string][] = [
      [await post("{not json"), 400, "INVALID_REQUEST"],
      [await post({ kind: "deny", approvalId: "ap-1", argsHash: "h" }), 400, "INVALID_REQUEST"],
      [await post({ kind: "deny", approvalId: "ap-1", argsHash: "h", reason: "   " }), 400, "INVALID_REQUEST"],
      [await post({ kind: "launch", approvalId: "ap-1", argsHash: "h" }), 400, "INVALID_REQUEST"],
      [await post({ kind: "approve", approvalId: "ap-9", argsHash: "h" }), 404, "NOT_FOUND"],
      [await post({ kind: "deny", approvalId: "ap-1", argsHash: "sha256:other", reason: "no" }), 409, "DECISION_REFUSED"],
      [await post("x".repeat(300 * 1024)), 413, "PAYLOAD_TOO_LARGE"],
      [await call(server.port, "GET", "/api/nothing", { cookie }), 404, "NOT_FOUND"],
      [await call(server.port, "DELETE", "/api/actions", { cookie, "content-type": "application/json", [CSRF_HEADER]: await csrf() }), 404, "NOT_FOUND"],
    ];
    for (const [answer, status, code] of cases) {
      expect(answer.status, answer.body).toBe(status);
      expect(answer.headers["content-type"]).toContain("application/json");
      const e = json(answer).error!;
      expect(e).toMatchObject({ code, retryable: false });
      expect(e.message.length).toBeGreaterThan(0);
    }
    expect(json(cases[5]![0]).error?.details).toEqual({ refusal: "ARGS_HASH_MISMATCH" });
    expect(client.decisions).toEqual([]);
  });

  it("streams the inbox as server-sent events and pushes a change without being asked", async () => {
    const received: string[] = [];
    const req = request({ host: "127.0.0.1", port: server.port, path: "/api/events", headers: { host: `127.0.0.1:${server.port}`, cookie } });
    const opened = new Promise<IncomingHttpHeaders>((resolve) =>
      req.on("response", (res) => {
        res.setEncoding("utf8");
        res.on("data", (c: string) => received.push(c));
        resolve(res.headers);
      }),
    );
    req.end();
    expect((await opened)["content-type"]).toContain("text/event-stream");
    await eventually(() => expect(received.join("")).toContain('"approvalId":"ap-2"'));
    cards.push(pendingSend("ap-3"));
    await feed.refresh();
    await eventually(() => expect(received.join("").split("event: state").at(-1)).toContain('"approvalId":"ap-3"'));
    req.destroy();
  });

  it("lists the person's calls for the Calls page, newest first, as rows the page sets as text", async () => {
    const page = await call(server.port, "GET", "/calls", { cookie });
    expect(page.status).toBe(200);
    expect(page.body).toContain('<script src="/calls.js"');
    expect(page.headers["content-security-policy"]).toContain("script-src 'self'");
    const a = await call(server.port, "GET", "/api/calls", { cookie });
    expect(a.status).toBe(200);
    const v = json(a).value as { person: string; total: number; rows: { callId: string; state: string; argsPreview: string; duration: string }[] };
    expect(v.person).toBe("alice");
    expect(v.total).toBe(2);
    expect(v.rows.map((r) => [r.callId, r.state])).toEqual([
      ["c-new", "waiting for approval"],
      ["c-old", "succeeded"],
    ]);
    // JSON carries the caller's text as it is; the page never parses it as HTML
    expect(v.rows[0]!.argsPreview).toContain("<script>");
  });

  it("serves a call's timeline as the trace page, escaped, with a policy that runs no script and a way back", async () => {
    const a = await call(server.port, "GET", "/calls/c-new", { cookie });
    expect(a.status).toBe(200);
    expect(a.headers["content-type"]).toContain("text/html");
    expect(a.headers["content-security-policy"]).toBe("default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
    expect(a.headers["x-frame-options"]).toBe("DENY");
    for (const type of ["ToolCallRequested", "ToolArgsValidated", "ToolPolicyChecked", "ApprovalRequested", "ApprovalGranted", "ToolCallStarted", "ToolCallFinished"]) {
      expect(a.body).toContain(`data-type="${type}"`);
    }
    expect(a.body).toContain('<a class="back" href="/calls">← Calls</a>');
    expect(a.body).toContain("warden inbox (alice)");
    expect(a.body).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(a.body).not.toMatch(/<script|<img/i);
  });

  it("serves the timeline of another's call that the person decided, with the way back to the approvals", async () => {
    const a = await call(server.port, "GET", "/calls/c-bots", { cookie });
    expect(a.status).toBe(200);
    expect(a.body).toContain('data-type="ApprovalGranted"');
    expect(a.body).toContain('<a class="back" href="/">← Approvals</a>');
    expect(a.body).toContain("who decided this call or may decide it");
  });

  it("answers a call it cannot show with a page naming the error: unknown 404, a bad id 400, both escaped", async () => {
    const missing = await call(server.port, "GET", "/calls/nope", { cookie });
    expect(missing.status).toBe(404);
    expect(missing.headers["content-type"]).toContain("text/html");
    expect(missing.body).toContain('data-code="NOT_FOUND"');
    expect(missing.body).toContain('<a href="/calls">← Calls</a>');
    const bad = await call(server.port, "GET", `/calls/${encodeURIComponent("<b>x</b>")}`, { cookie });
    expect(bad.status).toBe(400);
    expect(bad.body).toContain('data-code="INVALID_REQUEST"');
    expect(bad.body).toContain("&lt;b&gt;x&lt;/b&gt;");
    expect(bad.body).not.toContain("<b>x</b>");
  });
});

describe("an inbox listening on every interface (a container's, published on the host's loopback)", () => {
  it("serves requests addressed to 127.0.0.1:PORT and still refuses any other Host", async () => {
    const client = standInClient([pendingSend("ap-1")]);
    const feed = startInboxFeed({ client, refreshMs: 60_000 });
    const server = await startInboxServer({ feed, actions: approverActions(client), calls: standInCalls([], {}), token: "t", host: "0.0.0.0" });
    try {
      expect(server.url).toBe(`http://127.0.0.1:${server.port}/?token=t`);
      const opened = await call(server.port, "GET", "/?token=t");
      expect(opened.status).toBe(303);
      // the container's own address, as a neighbour on its network would send it
      const neighbour = await call(server.port, "GET", "/api/state", { host: `172.17.0.2:${server.port}`, cookie: opened.headers["set-cookie"]![0]!.split(";")[0]! });
      expect(neighbour.status).toBe(403);
    } finally {
      await server.stop();
      await feed.stop();
    }
  });
});
