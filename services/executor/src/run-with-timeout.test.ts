import { describe, expect, it } from "vitest";
import { runWithTimeout } from "./run-with-timeout.js";
import { ToolError } from "./tool-error.js";

describe("runWithTimeout", () => {
  it("returns the handler's value", async () => {
    expect(await runWithTimeout(async () => ({ a: 1 }), 1_000)).toEqual({ ok: true, value: { a: 1 } });
  });

  it("turns a throw, sync or async, into HANDLER_ERROR with the message", async () => {
    const sync = await runWithTimeout(() => {
      throw new Error("boom");
    }, 1_000);
    expect(sync).toMatchObject({ ok: false, error: { code: "HANDLER_ERROR", message: "boom", retryable: true } });
    const rejected = await runWithTimeout(() => Promise.reject("plain string"), 1_000);
    expect(rejected).toMatchObject({ ok: false, error: { code: "HANDLER_ERROR", message: "plain string" } });
  });

  it("keeps the error value of a ToolError instead of HANDLER_ERROR", async () => {
    const error = { code: "HANDLER_ERROR" as const, message: "exit code 2", retryable: false, details: { exitCode: 2 } };
    const r = await runWithTimeout(() => Promise.reject(new ToolError(error)), 1_000);
    expect(r).toEqual({ ok: false, error });
  });

  it("answers TIMEOUT without waiting for a handler that ignores its signal, and aborts the signal", async () => {
    let seen: AbortSignal | undefined;
    const r = await runWithTimeout((signal) => {
      seen = signal;
      return new Promise(() => {});
    }, 30);
    expect(r).toMatchObject({ ok: false, error: { code: "TIMEOUT" } });
    expect(seen?.aborted).toBe(true);
  });

  it("reports TIMEOUT even when the handler rejects as soon as it is aborted", async () => {
    const r = await runWithTimeout(
      (signal) =>
        new Promise((_, reject) => {
          signal.addEventListener("abort", () => reject(new Error("aborted")));
        }),
      30,
    );
    expect(r).toMatchObject({ ok: false, error: { code: "TIMEOUT" } });
  });
});
