import { wardenError, type WardenError } from "@warden/contracts/errors";
import { matchesSecret, secretDigest } from "@warden/contracts/json";
import type { InboxSessions } from "./inbox-sessions.js";

/** The header a page's POST carries the per-run CSRF secret in (a cross-site form cannot set it). */
export const CSRF_HEADER = "x-warden-csrf";

/** The per-run secrets and the one address a request must name. */
export interface GuardSecrets {
  /** The port the inbox listens on: the only Host (and Origin) accepted is 127.0.0.1 or localhost on it. */
  readonly port: number;
  /** The printed URL's one-time token and the session it opens (the cookie). */
  readonly sessions: InboxSessions;
  /** The secret a POST echoes in {@link CSRF_HEADER}; the page reads it from `/api/session`. */
  readonly csrf: string;
  /** The session cookie's name (per port: cookies are per host, not per port). */
  readonly cookieName: string;
}

/** What the guard sees of a request: enough to judge it, nothing to act on. */
export interface GuardedRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
}

/**
 * Let through (with a live session's cookie, or a GET carrying the URL's token not used yet, which
 * the server then trades for a session), or refused with an HTTP status and a structured error.
 */
export type GuardVerdict =
  | { readonly ok: true; readonly via: "cookie" | "query" }
  | { readonly ok: false; readonly status: number; readonly error: WardenError };

function header(req: GuardedRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : (v as string | undefined);
}


/** The value of one cookie in a Cookie header. */
export function cookieValue(cookieHeader: string | undefined, name: string): string | undefined {
  if (cookieHeader === undefined) return undefined;
  for (const part of cookieHeader.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

function refused(status: number, message: string): GuardVerdict {
  return { ok: false, status, error: wardenError("FORBIDDEN", message) };
}

/**
 * Judges a request before anything else reads it, in this order:
 * 1. Host must be 127.0.0.1:PORT or localhost:PORT: a page that rebinds its own name to
 *    127.0.0.1 (DNS rebinding) sends its name as Host and is refused;
 * 2. a live session's cookie, or, on a GET, the printed URL's `token` if it was never used
 *    (a used one is refused: the URL opens the inbox once);
 * 3. for anything but GET/HEAD: an Origin, if sent, of this very address, JSON content, and the
 *    CSRF secret echoed in a header (a cross-site page can neither read it nor set the header
 *    without a preflight nobody answers).
 */
export function guardRequest(req: GuardedRequest, secrets: GuardSecrets): GuardVerdict {
  const allowed = [`127.0.0.1:${secrets.port}`, `localhost:${secrets.port}`];
  const host = header(req, "host");
  if (host === undefined || !allowed.includes(host.toLowerCase())) {
    return refused(403, `refused: Host ${host ?? "(none)"} is not this inbox's address (http://127.0.0.1:${secrets.port})`);
  }
  const reading = req.method === "GET" || req.method === "HEAD";
  const fromQuery = req.url.searchParams.get("token") ?? undefined;
  const session = secrets.sessions.touch(cookieValue(header(req, "cookie"), secrets.cookieName));
  const url = reading && session !== "live" ? secrets.sessions.urlToken(fromQuery) : "wrong";
  const via = session === "live" ? "cookie" : url === "fresh" ? "query" : undefined;
  if (via === undefined) {
    const [reason, message] =
      url === "used"
        ? ["TOKEN_USED", "refused: this URL's token was used already (it opens the inbox once, in one browser); restart `warden inbox` for a new URL"]
        : session === "expired"
          ? ["SESSION_EXPIRED", "refused: this inbox session ended after a time without use; restart `warden inbox` for a new URL"]
          : ["NO_SESSION", "refused: open the URL `warden inbox` printed (it carries this run's token)"];
    return { ok: false, status: 401, error: wardenError("FORBIDDEN", message, { reason }) };
  }
  if (reading) return { ok: true, via };
  const origin = header(req, "origin");
  if (origin !== undefined && !allowed.some((a) => origin.toLowerCase() === `http://${a}`)) {
    return refused(403, `refused: Origin ${origin} is not this inbox`);
  }
  const type = header(req, "content-type") ?? "";
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    return { ok: false, status: 415, error: wardenError("INVALID_REQUEST", "a request body must be application/json") };
  }
  if (!matchesSecret(header(req, CSRF_HEADER), secretDigest(secrets.csrf))) {
    return refused(403, `refused: the ${CSRF_HEADER} header must carry this page's CSRF secret (reload the page)`);
  }
  return { ok: true, via };
}
