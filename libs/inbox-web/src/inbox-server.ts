import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { silentLogger, type Logger } from "@warden/bus";
import { isSafeToken } from "@warden/contracts/subjects";
import { wardenError, type WardenError } from "@warden/contracts/errors";
import { parseJsonGuarded } from "@warden/contracts/json";
import { escapeHtml as esc, isTerminalState, traceHtml } from "@warden/projections";
import { callRows } from "./domain/call-rows.js";
import { createInboxSessions } from "./domain/inbox-sessions.js";
import { cookieValue, guardRequest, type GuardSecrets } from "./domain/request-guard.js";
import { statusOfError, type InboxActions } from "./inbox-actions.js";
import type { InboxFeed, InboxSnapshot } from "./inbox-feed.js";
import type { OwnCallsReader } from "./own-calls-client.js";

/** The page's files, served as they are: no build step, nothing fetched at run time. */
const PUBLIC_DIR = fileURLToPath(new URL("../public/", import.meta.url));
const STATIC: Readonly<Record<string, { file: string; type: string }>> = {
  "/": { file: "index.html", type: "text/html; charset=utf-8" },
  "/inbox.css": { file: "inbox.css", type: "text/css; charset=utf-8" },
  "/dom.js": { file: "dom.js", type: "text/javascript; charset=utf-8" },
  "/inbox.js": { file: "inbox.js", type: "text/javascript; charset=utf-8" },
  "/calls": { file: "calls.html", type: "text/html; charset=utf-8" },
  "/calls.js": { file: "calls.js", type: "text/javascript; charset=utf-8" },
  "/favicon.svg": { file: "favicon.svg", type: "image/svg+xml" },
};

const MAX_BODY_BYTES = 256 * 1024;
const HEARTBEAT_MS = 15_000;

/** Sent with every answer: the page loads only its own files and cannot be framed. */
const SECURITY_HEADERS = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
} as const;

/**
 * A call's timeline is the page `warden trace --html` writes: no script, inline styles (its bars
 * are placed by style attributes), nothing loaded. Every value in it is escaped by the renderer.
 */
const TIMELINE_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** How often the timeline of a call still open reloads itself. */
const OPEN_CALL_REFRESH_S = 5;

/** The Calls page lists this many of the person's newest calls. */
const CALLS_SHOWN = 50;

export interface InboxServerOptions {
  readonly feed: InboxFeed;
  readonly actions: InboxActions;
  /** The person's own calls, read with the inbox's credentials (the Calls page). */
  readonly calls: OwnCallsReader;
  /** 0 picks a free port. @default 0 */
  readonly port?: number;
  /**
   * The address to listen on. Whatever it is, a request must be addressed to 127.0.0.1:PORT or
   * localhost:PORT (its Host header), so another address serves only a container whose port is
   * published on the host's loopback at the same number (docker-compose.yml). @default 127.0.0.1
   */
  readonly host?: string;
  /** The per-run secret of the URL, good for one use; random unless a test fixes it. */
  readonly token?: string;
  /** A session (the cookie the URL's token is traded for) ends after this long without a request. @default 12 h */
  readonly sessionIdleMs?: number;
  /** The clock sessions are timed by (tests). @default Date.now */
  readonly now?: () => number;
  readonly log?: Logger;
}

export interface InboxServer {
  /** `http://127.0.0.1:PORT/?token=…`: the one URL that opens the inbox, once (its Calls page is `/calls`). */
  readonly url: string;
  readonly port: number;
  stop(): Promise<void>;
}

function sendJson(res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}): void {
  if (res.headersSent) return;
  res.writeHead(status, { ...SECURITY_HEADERS, "content-type": "application/json; charset=utf-8", ...extra }).end(JSON.stringify(body));
}

function sendError(res: ServerResponse, status: number, error: WardenError): void {
  sendJson(res, status, { ok: false, error });
}

function sendTimeline(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, { ...SECURITY_HEADERS, "content-security-policy": TIMELINE_CSP, "content-type": "text/html; charset=utf-8" }).end(html);
}

/** Why a call's timeline cannot be shown, as a page (the person opened a link, not an API). */
function timelineErrorPage(callId: string, error: WardenError): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Warden: call ${esc(callId)} not shown</title>
<style>body{font:14px/1.45 system-ui,sans-serif;margin:1.5rem 2rem;color:#1d2330}a{color:#3d7bd9;font-weight:600}code{font:12px ui-monospace,monospace}</style></head>
<body><nav><a href="/calls">← Calls</a></nav>
<h1>Cannot show call <code>${esc(callId)}</code></h1>
<p class="error" data-code="${esc(error.code)}">${esc(error.code)}: ${esc(error.message)}</p>
</body>
</html>
`;
}

type Body = { ok: true; value: unknown } | { ok: false; status: number; error: WardenError };

async function readJsonBody(req: IncomingMessage): Promise<Body> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const b = chunk as Buffer;
    size += b.length;
    if (size > MAX_BODY_BYTES) return { ok: false, status: 413, error: wardenError("PAYLOAD_TOO_LARGE", `a request body is at most ${MAX_BODY_BYTES} bytes`) };
    chunks.push(b);
  }
  const parsed = parseJsonGuarded(Buffer.concat(chunks));
  if (!parsed.ok) return { ok: false, status: 400, error: wardenError("INVALID_REQUEST", parsed.reason, { reason: parsed.code }) };
  return { ok: true, value: parsed.value };
}

/** The cookie a session travels in: the page's scripts cannot read it, no other site sends it, and it ends when the session does. */
function sessionCookie(name: string, id: string, maxAgeMs: number): string {
  return `${name}=${id}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${Math.floor(maxAgeMs / 1000)}`;
}

/** The address asked for, less its token. */
function cleanLocation(url: URL): string {
  const params = new URLSearchParams(url.searchParams);
  params.delete("token");
  const query = params.toString();
  return `${url.pathname}${query === "" ? "" : `?${query}`}`;
}

/** `/calls/<callId>`: one call's timeline. */
const CALL_PAGE_PREFIX = "/calls/";

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * Serves one person's inbox on 127.0.0.1: the page, its state (`/api/state`, and live as
 * server-sent events on `/api/events`) and its decisions (`POST /api/actions`); the Calls page
 * (`/calls`, its rows on `/api/calls`) and a call's timeline (`/calls/<callId>`). Every request
 * passes {@link guardRequest} first; every error is `{ ok: false, error: { code, message, retryable } }`,
 * but a timeline that cannot be shown, which is a page naming that error.
 */
export async function startInboxServer(opts: InboxServerOptions): Promise<InboxServer> {
  const { feed, actions, calls } = opts;
  const log = opts.log ?? silentLogger();
  const token = opts.token ?? randomBytes(24).toString("base64url");
  const csrf = randomBytes(24).toString("base64url");
  const sessions = createInboxSessions({ token, ...(opts.sessionIdleMs === undefined ? {} : { idleMs: opts.sessionIdleMs }), ...(opts.now === undefined ? {} : { now: opts.now }) });
  // each event stream with the session it was opened in, so it ends when that session does
  const streams = new Map<ServerResponse, string>();

  const session = () => ({ person: feed.snapshot().person, csrf, actions: actions.specs });

  function openEvents(res: ServerResponse, sessionId: string): void {
    res.writeHead(200, { ...SECURITY_HEADERS, "content-type": "text/event-stream; charset=utf-8", connection: "keep-alive" });
    const push = (s: InboxSnapshot) => res.write(`event: state\ndata: ${JSON.stringify(s)}\n\n`);
    push(feed.snapshot());
    const off = feed.onChange(push);
    streams.set(res, sessionId);
    res.on("close", () => {
      off();
      streams.delete(res);
    });
  }

  async function postAction(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readJsonBody(req);
    if (!body.ok) return sendError(res, body.status, body.error);
    const r = await actions.run(body.value);
    if (!r.ok) {
      log.info({ code: r.error.code, refusal: r.error.details?.["refusal"] }, "inbox action refused");
      // the card may be stale (decided elsewhere, expired): show the page the truth
      void feed.refresh();
      return sendError(res, statusOfError(r.error), r.error);
    }
    log.info({ approvalId: r.value.approvalId, callId: r.value.callId, decision: r.value.decision }, "inbox decision");
    const done = r.value;
    if (done.decision === "revoke-session" || done.approvalId === undefined) void feed.refresh();
    else feed.decided(done.approvalId, done.decision, done.reason);
    sendJson(res, 200, { ok: true, value: r.value });
  }

  async function listCalls(res: ServerResponse): Promise<void> {
    const r = await calls.list(CALLS_SHOWN);
    if (!r.ok) {
      log.warn({ err: r.error }, "calls list failed");
      return sendError(res, statusOfError(r.error), r.error);
    }
    sendJson(res, 200, { ok: true, value: { person: calls.person, total: r.value.total, rows: callRows(r.value.calls), at: new Date().toISOString() } });
  }

  async function showTimeline(res: ServerResponse, callId: string): Promise<void> {
    if (!isSafeToken(callId)) return sendTimeline(res, 400, timelineErrorPage(callId, wardenError("INVALID_REQUEST", "a call id is a safe token (^[A-Za-z0-9_-]{1,128}$)")));
    // the person's own call, else one they decided or may decide (the link of a card or of Decided)
    const own = await calls.trace(callId);
    const r = own.ok || own.error.code !== "NOT_FOUND" ? own : await calls.traceDecided(callId);
    if (!r.ok) return sendTimeline(res, statusOfError(r.error), timelineErrorPage(callId, r.error));
    const html = traceHtml(r.value, {
      generatedAt: new Date().toISOString(),
      generator: `warden inbox (${calls.person})`,
      back: own.ok ? { href: "/calls", label: "← Calls" } : { href: "/", label: "← Approvals" },
      note: own.ok
        ? `Read as ${calls.person}, who may read their own calls only; an auditor reads any call, child calls included, with warden trace.`
        : `Read as ${calls.person}, who decided this call or may decide it; an auditor reads any call, child calls included, with warden trace.`,
      // a call still on its way: the page (which runs no script) reloads itself, so a wait keeps counting
      ...(isTerminalState(r.value.status) ? {} : { refreshSeconds: OPEN_CALL_REFRESH_S }),
    });
    sendTimeline(res, 200, html);
  }

  async function handle(req: IncomingMessage, res: ServerResponse, secrets: GuardSecrets): Promise<void> {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const method = req.method ?? "GET";
    const verdict = guardRequest({ method, url, headers: req.headers }, secrets);
    if (!verdict.ok) return sendError(res, verdict.status, verdict.error);
    const route = `${method} ${url.pathname}`;
    const clean = url.searchParams.has("token") ? cleanLocation(url) : undefined;
    if (verdict.via === "query") {
      // trade the URL's token, once, for a session cookie, and drop it from the address bar and history
      const id = sessions.redeem(url.searchParams.get("token") ?? "");
      if (id === undefined) return sendError(res, 401, wardenError("FORBIDDEN", "refused: this URL's token was used already", { reason: "TOKEN_USED" }));
      log.info("inbox url token traded for a session");
      return void res.writeHead(303, { ...SECURITY_HEADERS, "set-cookie": sessionCookie(secrets.cookieName, id, sessions.idleMs), location: clean ?? "/" }).end();
    }
    const sessionId = cookieValue(req.headers.cookie, secrets.cookieName) ?? "";
    // each answer renews the cookie's lifetime, as each request renews the session's
    res.setHeader("set-cookie", sessionCookie(secrets.cookieName, sessionId, sessions.idleMs));
    if (clean !== undefined && method === "GET") return void res.writeHead(303, { ...SECURITY_HEADERS, location: clean }).end();
    const file = method === "GET" ? STATIC[url.pathname] : undefined;
    if (file !== undefined) {
      const content = await readFile(`${PUBLIC_DIR}${file.file}`);
      return void res.writeHead(200, { ...SECURITY_HEADERS, "content-type": file.type }).end(content);
    }
    switch (route) {
      case "GET /api/session":
        return sendJson(res, 200, { ok: true, value: session() });
      case "GET /api/state":
        return sendJson(res, 200, { ok: true, value: feed.snapshot() });
      case "GET /api/events":
        return openEvents(res, sessionId);
      case "POST /api/actions":
        return postAction(req, res);
      case "GET /api/calls":
        return listCalls(res);
      default:
        if (method === "GET" && url.pathname.startsWith(CALL_PAGE_PREFIX)) return showTimeline(res, safeDecode(url.pathname.slice(CALL_PAGE_PREFIX.length)));
        return sendError(res, 404, wardenError("NOT_FOUND", `no ${method} ${url.pathname} here`));
    }
  }

  const listener = createServer();
  await new Promise<void>((resolve, reject) => {
    listener.once("error", reject);
    // loopback unless told: the page acts as the person whose credentials this process holds
    listener.listen(opts.port ?? 0, opts.host ?? "127.0.0.1", () => {
      listener.off("error", reject);
      resolve();
    });
  });
  const port = (listener.address() as AddressInfo).port;
  // the secrets name the port, known once listening; nobody knows the URL before it is printed
  const secrets: GuardSecrets = { port, sessions, csrf, cookieName: `warden_inbox_${port}` };
  listener.on("request", (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res, secrets).catch((err: unknown) => {
      log.error({ err }, "inbox request failed");
      sendError(res, 500, wardenError("INTERNAL", "the inbox failed to answer; see its log"));
    });
  });
  const heartbeat = setInterval(() => {
    for (const [s, id] of streams) {
      // an open page does not keep its session: past the idle time it must be opened again
      if (sessions.state(id) === "live") s.write(": keep-alive\n\n");
      else s.end();
    }
  }, HEARTBEAT_MS);
  heartbeat.unref();
  return {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    port,
    async stop() {
      clearInterval(heartbeat);
      for (const s of streams.keys()) s.end();
      listener.closeAllConnections();
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    },
  };
}
