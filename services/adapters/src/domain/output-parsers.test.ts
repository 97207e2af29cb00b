import { describe, expect, it } from "vitest";
import { buildChildEnv, DEFAULT_PATH } from "./child-env.js";
import { parseOutput } from "./output-parsers.js";

describe("parseOutput", () => {
  it("keeps text, parses one JSON document, or one per line skipping blank lines", () => {
    expect(parseOutput("hi\n", "text")).toEqual({ ok: true, value: "hi\n" });
    expect(parseOutput('{"a":1}', "json")).toEqual({ ok: true, value: { a: 1 } });
    expect(parseOutput('{"a":1}\n\n[2]\n', "jsonl")).toEqual({ ok: true, value: [{ a: 1 }, [2]] });
  });

  it("names the line that is not JSON", () => {
    expect(parseOutput('{"a":1}\nnope\n', "jsonl")).toMatchObject({ ok: false, error: { code: "OUTPUT_INVALID", message: expect.stringMatching(/line 2/) } });
    expect(parseOutput("nope", "json")).toMatchObject({ ok: false, error: { code: "OUTPUT_INVALID" } });
  });
});

describe("buildChildEnv", () => {
  it("passes only allowed names, fixed values and injected secrets, with a default PATH", () => {
    const env = buildChildEnv({ allow: ["LANG", "MISSING"], set: { MODE: "x" } }, { LANG: "C", HOME: "/root", AWS_SECRET: "nope" }, { TOKEN: "t0ken-value" });
    expect(env).toEqual({ LANG: "C", MODE: "x", TOKEN: "t0ken-value", PATH: DEFAULT_PATH });
  });
});
