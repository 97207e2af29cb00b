import { describe, expect, it } from "vitest";
import { Redactor } from "./redactor.js";

const secret = "s3cr3t-Value/+=?é";
const r = new Redactor(new Map([["api_token", secret]]));
const MARK = "[REDACTED:api_token]";
const bytes = Buffer.from(secret, "utf8");

function base64At(shift: number, url = false): string {
  const b64 = Buffer.concat([Buffer.from("xyz".slice(0, shift)), bytes, Buffer.from("!")]).toString(url ? "base64url" : "base64");
  return `prefix:${b64}`;
}

describe("Redactor", () => {
  it("replaces a secret's value, and its URL and JSON-escaped forms, with its name", () => {
    expect(r.text(`a ${secret} b ${encodeURIComponent(secret)} c ${encodeURIComponent(secret).replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase())}`)).toBe(`a ${MARK} b ${MARK} c ${MARK}`);
    const escaped = [...secret].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join("");
    expect(r.text(`"${escaped}"`)).toBe(`"${MARK}"`);
    const quoted = new Redactor(new Map([["q", 'with"quote/']]));
    expect(quoted.text(JSON.stringify({ v: 'with"quote/' }))).toBe(`{"v":"[REDACTED:q]"}`);
  });

  it("replaces hex of the secret in either case, plain, prefixed or separated by dashes and colons", () => {
    const hex = bytes.toString("hex");
    for (const form of [hex, hex.toUpperCase(), hex.match(/../g)!.join("-"), hex.toUpperCase().match(/../g)!.join(":"), hex.match(/../g)!.map((h) => `\\x${h}`).join("")]) {
      expect(r.text(`id=${form};`), form).toBe(`id=${MARK};`);
    }
  });

  it("replaces the raw value with its characters separated by dashes or spaces", () => {
    expect(r.text(`x ${[...secret].join("-")} y`)).toBe(`x ${MARK} y`);
  });

  it("finds base64 and base64url of the secret at every alignment behind a prefix, keeping only a few edge characters", () => {
    for (const shift of [0, 1, 2]) {
      for (const url of [false, true]) {
        const text = base64At(shift, url);
        const out = r.text(text);
        expect(out, `shift ${shift} url ${url}`).toContain(MARK);
        expect(out.replace(MARK, "").length, `shift ${shift} url ${url}`).toBeLessThanOrEqual("prefix:".length + 8);
      }
    }
  });

  it("finds base64 wrapped across lines", () => {
    const long = new Redactor(new Map([["k", "k".repeat(10) + "0123456789abcdefghijklmnop"]]));
    const b64 = Buffer.from("k".repeat(10) + "0123456789abcdefghijklmnop").toString("base64");
    expect(long.text(`${b64.slice(0, 20)}\n${b64.slice(20)}`)).toBe("[REDACTED:k]");
  });

  it("redacts raw bytes before they are encoded, including a non-ASCII secret's UTF-8 bytes", () => {
    const body = Buffer.concat([Buffer.from([0, 255, 1]), bytes, Buffer.from([2, 254])]);
    const out = r.bytes(body);
    expect(out.includes(bytes)).toBe(false);
    expect(out.toString("latin1")).toContain(MARK);
    expect(out.subarray(0, 3)).toEqual(Buffer.from([0, 255, 1]));
  });

  it("redacts every string and key of a JSON value", () => {
    expect(r.value({ [secret]: [secret, 1, { deep: `x${secret}` }] })).toEqual({ [MARK]: [MARK, 1, { deep: `x${MARK}` }] });
  });

  it("redacts the start of a secret left at the end of cut-off output", () => {
    expect(r.text(`output ${secret.slice(0, 6)}`, true)).toBe(`output ${MARK}`);
    expect(r.text(`output ${secret.slice(0, 6)}`, false)).toBe(`output ${secret.slice(0, 6)}`);
  });

  it("names the secret that matched when there are several, the longer first", () => {
    const two = new Redactor([["short", "abcdefgh"], ["long", "abcdefgh-and-more"]]);
    expect(two.text("abcdefgh-and-more abcdefgh")).toBe("[REDACTED:long] [REDACTED:short]");
  });

  it("leaves ordinary text alone", () => {
    expect(Redactor.none().text("anything")).toBe("anything");
    const text = "The quick brown fox 0123456789 deadbeef aGVsbG8gd29ybGQ=";
    expect(r.text(text)).toBe(text);
  });

  it("scans a megabyte of output quickly", () => {
    const many = new Redactor([["a", "alpha-secret-1234"], ["b", "bravo-secret-5678"], ["c", "charlie-secret-90"]]);
    const text = "lorem ipsum dolor sit amet 0123456789 ".repeat(28_000);
    const t0 = performance.now();
    many.text(text);
    expect(performance.now() - t0).toBeLessThan(1_000);
  });
});
