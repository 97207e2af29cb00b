import { describe, expect, it } from "vitest";
import { redactResult } from "./redact-result.js";
import { Redactor } from "./redactor.js";

const secret = "s3cr3t-Value/+=?é";
const r = new Redactor(new Map([["api_token", secret]]));
const MARK = "[REDACTED:api_token]";

describe("redactResult", () => {
  it("leaves an output that cannot be serialised to shapeOutput instead of walking it forever", () => {
    const cyclic: Record<string, unknown> = { secret };
    cyclic["self"] = cyclic;
    expect(redactResult({ ok: true, value: cyclic }, r)).toEqual({ ok: true, value: cyclic });
    expect(redactResult({ ok: true, value: { at: new Date(0), s: secret } }, r)).toEqual({ ok: true, value: { at: "1970-01-01T00:00:00.000Z", s: MARK } });
  });

  it("redacts the start of a secret at the cut of a long thrown message", () => {
    const error = { code: "HANDLER_ERROR" as const, message: `boom ${secret.slice(0, 9)}…`, retryable: true };
    expect(redactResult({ ok: false, error }, r)).toEqual({ ok: false, error: { ...error, message: `boom ${MARK}…` } });
  });
});
