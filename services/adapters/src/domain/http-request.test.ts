import { describe, expect, it } from "vitest";
import { hostAllowed } from "./host-allow.js";
import { buildHttpRequest, type HttpTemplate } from "./http-request.js";

const base: HttpTemplate = { method: "GET", url: "https://api.example.com/items/{id}", allowHosts: ["api.example.com"] };

describe("buildHttpRequest", () => {
  it("fills the URL path with encoded args, adds query members that are present and fills a JSON body with typed values", () => {
    const r = buildHttpRequest(
      { ...base, method: "POST", query: { q: "{q}", page: "{page}" }, body: { id: "{id}", n: "{n}", note: "id {id}", skip: "{absent}" } },
      { id: "a?b c", q: "x&y/z", n: 3 },
      "write",
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.url.toString()).toBe("https://api.example.com/items/a%3Fb%20c?q=x%26y%2Fz");
    expect(JSON.parse(r.value.body!)).toEqual({ id: "a?b c", n: 3, note: "id a?b c" });
    expect(r.value.headers["content-type"]).toBe("application/json");
  });

  it("refuses a host that is not on the allow-list, credentials in the URL and other schemes", () => {
    const t: HttpTemplate = { ...base, url: "http://{host}/x" };
    expect(buildHttpRequest(t, { host: "evil.example.org" }, "read")).toMatchObject({ ok: false, error: { code: "INVALID_ARGS", message: expect.stringMatching(/not on the tool's allow-list/) } });
    // a host arg must be a plain host[:port], so one cannot smuggle in credentials, a path or another host
    expect(buildHttpRequest(t, { host: "api.example.com@evil.example.org" }, "read")).toMatchObject({ ok: false });
    expect(buildHttpRequest(t, { host: "evil.example.org/api.example.com" }, "read")).toMatchObject({ ok: false });
    expect(buildHttpRequest(t, { host: "api.example.com:8443" }, "read")).toMatchObject({ ok: true });
    expect(buildHttpRequest({ ...base, url: "https://user:pw@api.example.com/{id}" }, { id: "1" }, "read")).toMatchObject({
      ok: false,
      error: { message: expect.stringMatching(/credentials/) },
    });
    expect(buildHttpRequest({ ...base, url: "file:///etc/{id}" }, { id: "passwd" }, "read")).toMatchObject({ ok: false });
  });

  it("refuses an unsafe method for a read tool, whether written in the manifest or taken from the args", () => {
    expect(buildHttpRequest({ ...base, method: "DELETE" }, { id: "1" }, "read")).toMatchObject({ ok: false, error: { message: expect.stringMatching(/not allowed for a read tool/) } });
    expect(buildHttpRequest({ ...base, method: "{m}" }, { id: "1", m: "post" }, "read")).toMatchObject({ ok: false });
    expect(buildHttpRequest({ ...base, method: "{m}" }, { id: "1", m: "head" }, "read")).toMatchObject({ ok: true, value: { method: "HEAD" } });
    expect(buildHttpRequest({ ...base, method: "DELETE" }, { id: "1" }, "send")).toMatchObject({ ok: true });
  });

  it("refuses a path arg that is . or .. or would make one, or holds a slash, and keeps an ordinary value in its segment", () => {
    const t: HttpTemplate = { ...base, url: "https://api.example.com/v1/users/{id}/profile" };
    for (const id of ["..", ".", "%2e%2e", ".%2E"]) {
      // "%2e" is sent encoded as "%252e", so only a literal dot could climb; both spellings are refused or harmless
      const r = buildHttpRequest(t, { id }, "read");
      if (id.includes("%")) expect(r).toMatchObject({ ok: true });
      else expect(r, id).toMatchObject({ ok: false, error: { code: "INVALID_ARGS", message: expect.stringMatching(/climb out of the URL template/) } });
    }
    for (const id of ["../admin", "a/b", "..\\admin", "x\\y"]) {
      expect(buildHttpRequest(t, { id }, "read"), id).toMatchObject({ ok: false, error: { code: "INVALID_ARGS", message: expect.stringMatching(/may not contain/) } });
    }
    // an arg and the literal text beside it may not make a dot segment together either
    expect(buildHttpRequest({ ...base, url: "https://api.example.com/v1/{a}./x" }, { a: "." }, "read")).toMatchObject({ ok: false });
    expect(buildHttpRequest(t, { id: "u-42..v" }, "read")).toMatchObject({ ok: true, value: { url: new URL("https://api.example.com/v1/users/u-42..v/profile") } });
    expect(buildHttpRequest({ ...base, url: "https://api.example.com/v1/{name}.json" }, { name: "." }, "read")).toMatchObject({ ok: true });
    // in the query a slash and dots are plain data
    expect(buildHttpRequest({ ...base, url: "https://api.example.com/v1?path={p}" }, { p: "../a/b" }, "read")).toMatchObject({ ok: true });
  });

  it("refuses a header value with a line break", () => {
    expect(buildHttpRequest({ ...base, headers: { "x-id": "{id}" } }, { id: "a\r\nX-Evil: 1" }, "read")).toMatchObject({ ok: false });
  });
});

describe("hostAllowed", () => {
  const u = (s: string) => new URL(s);
  it("matches a name on any port, a name with a port on that port only, and wildcards on subdomains only", () => {
    expect(hostAllowed(u("http://127.0.0.1:4567/x"), ["127.0.0.1"])).toBe(true);
    expect(hostAllowed(u("http://127.0.0.1:4567/x"), ["127.0.0.1:4568"])).toBe(false);
    expect(hostAllowed(u("https://API.example.com/"), ["api.example.com:443"])).toBe(true);
    expect(hostAllowed(u("https://a.example.com/"), ["*.example.com"])).toBe(true);
    expect(hostAllowed(u("https://example.com/"), ["*.example.com"])).toBe(false);
    expect(hostAllowed(u("https://badexample.com/"), ["*.example.com"])).toBe(false);
    expect(hostAllowed(u("https://example.com.evil.org/"), ["example.com"])).toBe(false);
  });
});
