import { describe, expect, it } from "vitest";
import { argvArgNames, buildArgv } from "./argv.js";

describe("buildArgv", () => {
  it("fills each element from the args without ever joining them into one shell string", () => {
    const r = buildArgv(["-n", "{pattern}", "--max={limit}", "file name; rm -rf /"], { pattern: "a b $(x)", limit: 5 });
    expect(r).toEqual({ ok: true, value: ["-n", "a b $(x)", "--max=5", "file name; rm -rf /"] });
  });

  it("drops an element whose arg is absent, spreads arrays and includes conditional parts only when the arg is true", () => {
    const template = ["ls", "--limit={limit}", { when: "all", argv: ["-a"] }, { when: "long", argv: ["-l"] }, "--", { spread: "paths" }];
    expect(buildArgv(template, { all: true, long: false, paths: ["x", "-y"] })).toEqual({ ok: true, value: ["ls", "-a", "--", "x", "-y"] });
  });

  it("refuses a value that would become an option unless it follows a literal --", () => {
    const r = buildArgv(["grep", "{pattern}"], { pattern: "--include=/etc/passwd" });
    expect(r).toMatchObject({ ok: false, error: { code: "INVALID_ARGS" } });
    expect(buildArgv(["grep", "--", "{pattern}"], { pattern: "-v" })).toEqual({ ok: true, value: ["grep", "--", "-v"] });
    expect(buildArgv(["--x={v}"], { v: "-1" })).toEqual({ ok: true, value: ["--x=-1"] });
  });

  it("refuses objects in a template and NUL characters in values", () => {
    expect(buildArgv(["{a}"], { a: { b: 1 } })).toMatchObject({ ok: false });
    expect(buildArgv(["{a}"], { a: "x\0y" })).toMatchObject({ ok: false });
  });

  it("lists the arg names a template uses and reports a malformed placeholder", () => {
    expect(argvArgNames(["{a}", "x{b}y", { spread: "c" }, { when: "d", argv: ["{e}"] }, "{{literal}}"])).toEqual({ ok: true, value: ["a", "b", "c", "d", "e"] });
    expect(argvArgNames(["{a"])).toMatchObject({ ok: false });
    expect(argvArgNames(["{not a name}"])).toMatchObject({ ok: false });
  });
});
