import { execFile, spawn } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { COMMANDS } from "./command-list.js";
import { leafCommands } from "./program.js";

const MAIN = resolve(dirname(fileURLToPath(import.meta.url)), "../dist/main.js");

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** The built CLI as a real process, with no Warden to talk to: usage never needs one. */
function warden(args: readonly string[]): Promise<Run> {
  return new Promise((done) => {
    execFile(process.execPath, [MAIN, ...args], { env: { ...process.env, WARDEN_HOME: "/nonexistent-warden-home" }, timeout: 20_000 }, (err, stdout, stderr) => {
      done({ code: err ? (typeof err.code === "number" ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

describe("warden's usage, from the declared command list", () => {
  it.for(leafCommands().map((c) => [c.path.join(" "), c] as const))("`warden %s --help` exits 0 and names every option", async ([, c]) => {
    const r = await warden([...c.path, "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Usage: warden ${c.path.join(" ")}`);
    for (const name of Object.keys(c.options)) expect(r.stdout).toMatch(new RegExp(`--${name}\\b`));
  });

  it("`warden --help` and `warden help` list every command and exit 0", async () => {
    for (const args of [["--help"], ["help"]]) {
      const r = await warden(args);
      expect(r.code).toBe(0);
      for (const c of COMMANDS) expect(r.stdout).toMatch(new RegExp(`^  ${c.name}\\b`, "m"));
    }
  });

  it("a command group's --help lists its subcommands", async () => {
    for (const group of COMMANDS.filter((c) => c.subcommands !== undefined)) {
      const r = await warden([group.name, "--help"]);
      expect(r.code).toBe(0);
      for (const sub of group.subcommands ?? []) expect(r.stdout).toMatch(new RegExp(`^  ${sub.name}\\b`, "m"));
    }
  });

  it("`warden` alone prints the help on stderr and exits 1", async () => {
    const r = await warden([]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("Usage: warden <command>");
  });

  it("suggests the command a typo meant", async () => {
    const r = await warden(["cal", "kb.search"]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe("warden: unknown command 'cal' (Did you mean call?); see `warden help`");
    const sub = await warden(["policy", "sett", "x.yaml"]);
    expect(sub.code).toBe(1);
    expect(sub.stderr).toContain("(Did you mean set?)");
  });

  it("suggests the option a typo meant, as one JSON document with --json", async () => {
    const text = await warden(["call", "kb.search", "--arg", "{}"]);
    expect(text.code).toBe(1);
    expect(text.stderr.trim()).toBe("warden: unknown option '--arg' (Did you mean --args?); see `warden call --help`");
    const json = await warden(["approvals", "--as", "alice", "--jsn", "--json"]);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, error: { code: "INVALID_REQUEST", message: expect.stringContaining("Did you mean --json?") } });
  });

  it("refuses a missing mandatory option before it needs a Warden", async () => {
    const r = await warden(["approvals", "--json"]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: false, error: { code: "INVALID_REQUEST", message: expect.stringContaining("--as <NAME>") } });
  });

  it("ends quietly when its reader has gone (EPIPE), with no stack trace", async () => {
    const child = spawn(process.execPath, [MAIN, "--help"], { stdio: ["ignore", "pipe", "pipe"] });
    // the reader goes away before the CLI writes, as `warden … | head -1` does once head has its line
    child.stdout.destroy();
    let stderr = "";
    child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
    const code = await new Promise<number | null>((done) => child.once("close", (c) => done(c)));
    expect(stderr).toBe("");
    expect(code).toBe(0);
  });
});
