import { fail, ok, type Outcome } from "@warden/contracts/errors";
import { type Grade } from "@warden/contracts/descriptor";
import { type JsonValue } from "@warden/contracts/json";
import { hostAllowed } from "./host-allow.js";
import { fillTemplate, parseTemplate, scalarText, templateArgNames } from "./template.js";

export const SAFE_METHODS = ["GET", "HEAD", "OPTIONS"] as const;
/** What a dry run may send: it only reads. */
export const PREVIEW_METHODS = ["GET", "HEAD"] as const;
export const HTTP_METHODS = ["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"] as const;

/** The request part of an HTTP tool's manifest; every string is a template over the args. */
export interface HttpTemplate {
  readonly method: string;
  readonly url: string;
  readonly query?: Readonly<Record<string, string>>;
  readonly headers?: Readonly<Record<string, string>>;
  /** A JSON body: a string that is exactly `{arg}` takes the arg's value as it is; other strings are templates. */
  readonly body?: JsonValue;
  readonly allowHosts: readonly string[];
}

export interface HttpRequestPlan {
  readonly method: string;
  readonly url: URL;
  readonly headers: Record<string, string>;
  readonly body?: string;
}

export function isSafeMethod(method: string): boolean {
  return (SAFE_METHODS as readonly string[]).includes(method.toUpperCase());
}

/** A `read` tool may only use safe methods: nothing changes on a read. */
export function checkMethodForGrade(method: string, grade: Grade): Outcome<void> {
  if (grade === "read" && !isSafeMethod(method)) {
    return fail("INVALID_ARGS", `method ${method.toUpperCase()} is not allowed for a read tool (only ${SAFE_METHODS.join(", ")})`);
  }
  return ok(undefined);
}

/** Checks a URL's scheme, credentials and host before anything is sent. */
export function checkUrl(url: URL, allowHosts: readonly string[]): Outcome<void> {
  if (url.protocol !== "http:" && url.protocol !== "https:") return fail("INVALID_ARGS", `only http and https URLs are allowed, not ${url.protocol}`);
  if (url.username !== "" || url.password !== "") return fail("INVALID_ARGS", "a URL may not carry credentials; use a secret header");
  if (!hostAllowed(url, allowHosts)) {
    return fail("INVALID_ARGS", `host ${url.host} is not on the tool's allow-list (${allowHosts.join(", ") || "empty"})`);
  }
  return ok(undefined);
}

/** Every arg name an HTTP template refers to; a template error is returned as a value. */
export function httpArgNames(t: HttpTemplate): Outcome<string[]> {
  const names: string[] = [];
  const strings = [t.method, t.url, ...Object.values(t.query ?? {}), ...Object.values(t.headers ?? {}), ...bodyStrings(t.body)];
  for (const s of strings) {
    const parts = parseTemplate(s);
    if (!parts.ok) return parts;
    names.push(...templateArgNames(parts.value));
  }
  return ok(names);
}

/** Builds the request from validated args and refuses it when the method or host is not allowed. */
export function buildHttpRequest(t: HttpTemplate, args: Readonly<Record<string, unknown>>, grade: Grade): Outcome<HttpRequestPlan> {
  const method = required("method", t.method, args);
  if (!method.ok) return method;
  const m = method.value.toUpperCase();
  if (!(HTTP_METHODS as readonly string[]).includes(m)) return fail("INVALID_ARGS", `method ${m} is not one of ${HTTP_METHODS.join(", ")}`);
  const allowed = checkMethodForGrade(m, grade);
  if (!allowed.ok) return allowed;

  const urlText = fillUrl(t.url, args);
  if (!urlText.ok) return urlText;
  let url: URL;
  try {
    url = new URL(urlText.value);
  } catch {
    return fail("INVALID_ARGS", `the filled URL ${JSON.stringify(urlText.value)} is not a URL`);
  }
  for (const [key, template] of Object.entries(t.query ?? {})) {
    const v = optional(template, args);
    if (!v.ok) return v;
    if (v.value !== undefined) url.searchParams.append(key, v.value);
  }
  const checked = checkUrl(url, t.allowHosts);
  if (!checked.ok) return checked;

  const headers: Record<string, string> = {};
  for (const [key, template] of Object.entries(t.headers ?? {})) {
    const v = optional(template, args);
    if (!v.ok) return v;
    if (v.value !== undefined) {
      if (/[\r\n]/.test(v.value)) return fail("INVALID_ARGS", `header ${key} may not contain a line break`);
      headers[key] = v.value;
    }
  }
  if (t.body === undefined || m === "GET" || m === "HEAD") return ok({ method: m, url, headers });
  const body = fillBody(t.body, args);
  if (!body.ok) return body;
  if (!Object.keys(headers).some((h) => h.toLowerCase() === "content-type")) headers["content-type"] = "application/json";
  return ok({ method: m, url, headers, body: JSON.stringify(body.value ?? null) });
}

const IN_AUTHORITY = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*$/i;
const HOST_VALUE = /^[A-Za-z0-9.:[\]-]+$/;
/** Still in the path: past the authority, before any `?` or `#`. */
const IN_PATH = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*\/[^?#]*$/i;
/** `.` and `..` in any spelling URL parsers and servers accept (`%2e` is a dot to WHATWG URL too). */
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

/**
 * Fills a URL template: an arg in the host part must be a plain `host[:port]` (the allow-list
 * then decides); anywhere else it is percent-encoded, so it cannot add a query or host. In the
 * path an arg may not hold `/` or `\` (servers and proxies often decode `%2F`), and no filled
 * path segment may be `.` or `..`: percent-encoding cannot stop those (`%2e%2e` is still `..`
 * to URL parsers), so they are refused rather than sent.
 */
export function fillUrl(template: string, args: Readonly<Record<string, unknown>>): Outcome<string> {
  const parts = parseTemplate(template);
  if (!parts.ok) return parts;
  let text = "";
  const inPath: { name: string; from: number }[] = [];
  for (const p of parts.value) {
    if (p.kind === "text") {
      text += p.text;
      continue;
    }
    const value = args[p.name];
    if (value === undefined || value === null) return fail("INVALID_ARGS", `the url needs ${p.name}`);
    const scalar = scalarText(p.name, value);
    if (!scalar.ok) return scalar;
    if (IN_AUTHORITY.test(text)) {
      if (!HOST_VALUE.test(scalar.value)) return fail("INVALID_ARGS", `${p.name} is not a host name (letters, digits, '.', '-', ':port')`);
      text += scalar.value;
    } else if (IN_PATH.test(text)) {
      if (/[/\\]/.test(scalar.value)) return fail("INVALID_ARGS", `${p.name} may not contain "/" or "\\" in the URL path: one arg fills at most one path segment`);
      inPath.push({ name: p.name, from: text.length });
      text += encodeURIComponent(scalar.value);
    } else {
      text += encodeURIComponent(scalar.value);
    }
  }
  const dots = dotSegmentFromArg(text, inPath);
  if (dots !== undefined) return fail("INVALID_ARGS", `${dots.name} makes the URL path segment ${JSON.stringify(dots.segment)}, which would climb out of the URL template`);
  return ok(text);
}

/** The first path segment that an arg made `.` or `..` (alone or with the literal text around it). */
function dotSegmentFromArg(url: string, args: readonly { name: string; from: number }[]): { name: string; segment: string } | undefined {
  let start = 0;
  for (const segment of url.split(/[?#]/)[0]!.split("/")) {
    const end = start + segment.length;
    const arg = args.find((a) => a.from >= start && a.from <= end);
    if (arg !== undefined && DOT_SEGMENT.test(segment)) return { name: arg.name, segment };
    start = end + 1;
  }
  return undefined;
}

function required(what: string, template: string, args: Readonly<Record<string, unknown>>): Outcome<string> {
  const parts = parseTemplate(template);
  if (!parts.ok) return parts;
  const filled = fillTemplate(parts.value, args);
  if (!filled.ok) return filled;
  if (filled.value.kind === "missing") return fail("INVALID_ARGS", `the ${what} needs ${filled.value.name}`);
  return ok(filled.value.text);
}

function optional(template: string, args: Readonly<Record<string, unknown>>): Outcome<string | undefined> {
  const parts = parseTemplate(template);
  if (!parts.ok) return parts;
  const filled = fillTemplate(parts.value, args);
  if (!filled.ok) return filled;
  return ok(filled.value.kind === "missing" ? undefined : filled.value.text);
}

const WHOLE_ARG = /^\{([A-Za-z_][A-Za-z0-9_-]*)\}$/;

/** Fills a JSON body template; members whose arg is absent are left out. */
export function fillBody(template: JsonValue, args: Readonly<Record<string, unknown>>): Outcome<JsonValue | undefined> {
  if (typeof template === "string") {
    const whole = WHOLE_ARG.exec(template);
    if (whole) return ok(args[whole[1]!] as JsonValue | undefined);
    return optional(template, args);
  }
  if (Array.isArray(template)) {
    const out: JsonValue[] = [];
    for (const item of template) {
      const v = fillBody(item, args);
      if (!v.ok) return v;
      if (v.value !== undefined) out.push(v.value);
    }
    return ok(out);
  }
  if (template !== null && typeof template === "object") {
    const out: Record<string, JsonValue> = {};
    for (const [k, item] of Object.entries(template)) {
      const v = fillBody(item, args);
      if (!v.ok) return v;
      if (v.value !== undefined) out[k] = v.value;
    }
    return ok(out);
  }
  return ok(template);
}

function bodyStrings(body: JsonValue | undefined): string[] {
  if (typeof body === "string") return [body];
  if (Array.isArray(body)) return body.flatMap(bodyStrings);
  if (body !== null && typeof body === "object") return Object.values(body).flatMap(bodyStrings);
  return [];
}
