import { describe, expect, it } from "vitest";
import { Redactor } from "./redact.js";

const secret = "s3cr3t-Value/+=?";
const r = new Redactor(new Map([["api_token", secret]]));

describe("Redactor", () => {
  it("replaces a secret's value, and its URL, base64 and JSON-escaped forms, with its name", () => {
    const text = `a ${secret} b ${encodeURIComponent(secret)} c ${Buffer.from(secret).toString("base64")}`;
    expect(r.text(text)).toBe("a [REDACTED:api_token] b [REDACTED:api_token] c [REDACTED:api_token]");
    const quoted = new Redactor(new Map([["q", 'with"quote']]));
    expect(quoted.text(JSON.stringify({ v: 'with"quote' }))).toBe('{"v":"[REDACTED:q]"}');
  });

  it("redacts every string and key of a JSON value", () => {
    expect(r.value({ [secret]: [secret, 1, { deep: `x${secret}` }] })).toEqual({ "[REDACTED:api_token]": ["[REDACTED:api_token]", 1, { deep: "x[REDACTED:api_token]" }] });
  });

  it("redacts the start of a secret left at the end of cut-off output", () => {
    expect(r.text(`output ${secret.slice(0, 6)}`, true)).toBe("output [REDACTED:api_token]");
    expect(r.text(`output ${secret.slice(0, 6)}`, false)).toBe(`output ${secret.slice(0, 6)}`);
  });

  it("leaves text alone when there are no secrets", () => {
    expect(Redactor.none().text("anything")).toBe("anything");
  });
});
