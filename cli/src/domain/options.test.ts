import { describe, expect, it } from "vitest";
import { CliError } from "../errors.js";
import { parseDuration, parseFlags, parseFormat, parseJsonArgs, parseMode, parseToken } from "./options.js";

describe("parseFlags", () => {
  it("reads k=v pairs, bare keys as true and common boolean spellings", () => {
    expect(parseFlags("kbAdmin=true,beta=0, gamma ,delta=off,eps=YES")).toEqual({ kbAdmin: true, beta: false, gamma: true, delta: false, eps: true });
    expect(parseFlags(undefined)).toEqual({});
    expect(parseFlags("")).toEqual({});
  });

  it("refuses values that are not booleans and empty keys", () => {
    expect(() => parseFlags("a=maybe")).toThrow(CliError);
    expect(() => parseFlags("=true")).toThrow(/--flags/);
    expect(() => parseFlags("a=b=c")).toThrow(/--flags/);
  });
});

describe("option parsers", () => {
  it("accept known modes and formats and refuse others", () => {
    expect(parseMode(undefined, "human")).toBe("human");
    expect(parseMode("llm", "human")).toBe("llm");
    expect(() => parseMode("robot", "human")).toThrow(/--mode/);
    expect(parseFormat("mcp", "table")).toBe("mcp");
    expect(() => parseFormat("xml", "table")).toThrow(/--format/);
  });

  it("read durations in ms, s and m, a bare number as seconds", () => {
    expect(parseDuration("--timeout", "250ms", 1)).toBe(250);
    expect(parseDuration("--timeout", "2", 1)).toBe(2_000);
    expect(parseDuration("--timeout", "1.5s", 1)).toBe(1_500);
    expect(parseDuration("--timeout", "2m", 1)).toBe(120_000);
    expect(parseDuration("--session-idle", "12h", 1)).toBe(43_200_000);
    expect(parseDuration("--timeout", undefined, 30_000)).toBe(30_000);
    expect(() => parseDuration("--timeout", "soon", 1)).toThrow(/--timeout/);
    expect(() => parseDuration("--timeout", "0", 1)).toThrow(/more than zero/);
  });

  it("refuse unsafe tokens and invalid JSON args", () => {
    expect(parseToken("--as", "alice")).toBe("alice");
    expect(() => parseToken("--as", "alice.smith")).toThrow(/--as/);
    expect(parseJsonArgs('{"query":"refund"}')).toEqual({ query: "refund" });
    expect(parseJsonArgs(undefined)).toEqual({});
    expect(() => parseJsonArgs("{query}")).toThrow(/--args is not valid JSON/);
  });
});
