import { describe, expect, it } from "vitest";
import { createInboxSessions } from "./inbox-sessions.js";
import { cookieValue, CSRF_HEADER, guardRequest, type GuardSecrets } from "./request-guard.js";

const TOKEN = "tok-123";
/** Secrets whose URL token was traded for a session already; `cookie` carries it. */
function opened(): { secrets: GuardSecrets; cookie: string; id: string } {
  const sessions = createInboxSessions({ token: TOKEN });
  const id = sessions.redeem(TOKEN)!;
  const secrets: GuardSecrets = { port: 4100, sessions, csrf: "csrf-456", cookieName: "warden_inbox_4100" };
  return { secrets, id, cookie: `other=1; ${secrets.cookieName}=${id}` };
}
const { secrets, cookie, id } = opened();
const at = (path: string) => new URL(path, "http://127.0.0.1:4100");

describe("guardRequest", () => {
  it("lets a GET with the session cookie and an address of this machine through", () => {
    expect(guardRequest({ method: "GET", url: at("/api/state"), headers: { host: "127.0.0.1:4100", cookie } }, secrets)).toEqual({ ok: true, via: "cookie" });
    expect(guardRequest({ method: "GET", url: at("/"), headers: { host: "localhost:4100", cookie } }, secrets)).toEqual({ ok: true, via: "cookie" });
  });

  it("takes the printed URL's token from the query until it is traded, then refuses it (TOKEN_USED)", () => {
    const sessions = createInboxSessions({ token: TOKEN });
    const fresh: GuardSecrets = { ...secrets, sessions };
    const get = (url: URL) => guardRequest({ method: "GET", url, headers: { host: "127.0.0.1:4100" } }, fresh);
    expect(get(at("/?token=tok-123"))).toEqual({ ok: true, via: "query" });
    // a POST never trades it: only a page load does
    expect(guardRequest({ method: "POST", url: at("/api/actions?token=tok-123"), headers: { host: "127.0.0.1:4100", "content-type": "application/json", [CSRF_HEADER]: "csrf-456" } }, fresh)).toMatchObject({ ok: false, status: 401 });
    expect(sessions.redeem(TOKEN)).toBeDefined();
    expect(get(at("/?token=tok-123"))).toMatchObject({ ok: false, status: 401, error: { code: "FORBIDDEN", details: { reason: "TOKEN_USED" } } });
    expect(get(at("/calls?token=tok-123"))).toMatchObject({ ok: false, status: 401, error: { details: { reason: "TOKEN_USED" } } });
  });

  it("refuses the cookie of a session idle longer than its time (SESSION_EXPIRED), and an open page does not keep it", () => {
    let t = 0;
    const sessions = createInboxSessions({ token: TOKEN, idleMs: 1_000, now: () => t });
    const sid = sessions.redeem(TOKEN)!;
    const s: GuardSecrets = { ...secrets, sessions };
    const get = () => guardRequest({ method: "GET", url: at("/api/state"), headers: { host: "127.0.0.1:4100", cookie: `${s.cookieName}=${sid}` } }, s);
    t = 999;
    expect(get()).toEqual({ ok: true, via: "cookie" });
    // each request starts the idle time again
    t = 1_998;
    expect(get()).toEqual({ ok: true, via: "cookie" });
    // looking, as the event stream's heartbeat does, is not a request
    t = 2_500;
    expect(sessions.state(sid)).toBe("live");
    t = 2_998;
    expect(get()).toMatchObject({ ok: false, status: 401, error: { code: "FORBIDDEN", details: { reason: "SESSION_EXPIRED" } } });
    expect(sessions.state(sid)).toBe("expired");
  });

  it("refuses a Host that is not 127.0.0.1 or localhost on this port, even with the token (DNS rebinding)", () => {
    for (const host of ["evil.example:4100", "127.0.0.1:4101", "127.0.0.1", "localhost.evil.example:4100", undefined]) {
      const v = guardRequest({ method: "GET", url: at("/?token=tok-123"), headers: { host, cookie } }, secrets);
      expect(v).toMatchObject({ ok: false, status: 403, error: { code: "FORBIDDEN", retryable: false } });
    }
  });

  it("refuses a request without the token, or with a wrong one, as 401 FORBIDDEN", () => {
    for (const [url, headers] of [
      [at("/"), { host: "127.0.0.1:4100" }],
      [at("/?token=tok-12"), { host: "127.0.0.1:4100" }],
      [at("/"), { host: "127.0.0.1:4100", cookie: `${secrets.cookieName}=${id}x` }],
      [at("/"), { host: "127.0.0.1:4100", cookie: `warden_inbox_9999=${id}` }],
      // the URL's token is not a session
      [at("/"), { host: "127.0.0.1:4100", cookie: `${secrets.cookieName}=${TOKEN}` }],
    ] as const) {
      expect(guardRequest({ method: "GET", url, headers }, secrets)).toMatchObject({ ok: false, status: 401, error: { code: "FORBIDDEN" } });
    }
  });

  it("lets a POST through only with JSON, the CSRF header and, if it names one, this origin", () => {
    const base = { host: "127.0.0.1:4100", cookie, "content-type": "application/json", [CSRF_HEADER]: "csrf-456" };
    const post = (headers: Record<string, string | undefined>) => guardRequest({ method: "POST", url: at("/api/actions"), headers }, secrets);
    expect(post(base)).toEqual({ ok: true, via: "cookie" });
    expect(post({ ...base, origin: "http://127.0.0.1:4100" })).toEqual({ ok: true, via: "cookie" });
    expect(post({ ...base, [CSRF_HEADER]: undefined })).toMatchObject({ ok: false, status: 403, error: { code: "FORBIDDEN" } });
    expect(post({ ...base, [CSRF_HEADER]: "csrf-457" })).toMatchObject({ ok: false, status: 403 });
    expect(post({ ...base, [CSRF_HEADER]: id })).toMatchObject({ ok: false, status: 403 });
    expect(post({ ...base, origin: "http://evil.example" })).toMatchObject({ ok: false, status: 403, error: { message: expect.stringContaining("Origin") } });
    expect(post({ ...base, origin: "http://127.0.0.1:9999" })).toMatchObject({ ok: false, status: 403 });
    expect(post({ ...base, "content-type": "text/plain" })).toMatchObject({ ok: false, status: 415, error: { code: "INVALID_REQUEST" } });
    expect(post({ ...base, "content-type": "application/x-www-form-urlencoded" })).toMatchObject({ ok: false, status: 415 });
  });
});

describe("cookieValue", () => {
  it("finds one cookie among several and nothing in a missing header", () => {
    expect(cookieValue("a=1; b = 2 ;c=3", "b")).toBe("2");
    expect(cookieValue("ab=1", "b")).toBeUndefined();
    expect(cookieValue(undefined, "b")).toBeUndefined();
  });
});
