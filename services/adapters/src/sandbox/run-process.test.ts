import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { eventually } from "@warden/testing";
import { FIXTURES, NODE, processGone, tempDir } from "../../test/harness.js";
import { probeNetworkSandbox, wrapNoNetwork } from "./network-sandbox.js";
import { runProcess, type ProcessSpec } from "./run-process.js";

const spec = (args: string[], over: Partial<ProcessSpec> = {}): ProcessSpec => ({
  command: NODE,
  args,
  cwd: tempDir("proc"),
  env: { PATH: process.env["PATH"] ?? "" },
  signal: new AbortController().signal,
  maxStdoutBytes: 1_000,
  maxStderrBytes: 100,
  ...over,
});

describe("runProcess (real processes)", () => {
  it("keeps output up to each cap, says it cut, and still lets the command finish", async () => {
    const r = await runProcess(spec(["-e", "process.stdout.write('x'.repeat(100000)); process.stderr.write('e'.repeat(500)); process.exitCode = 4"]));
    expect(r).toMatchObject({ exitCode: 4, stdoutTruncated: true, stderrTruncated: true, aborted: false });
    expect(r.stdout.length).toBe(1_000);
    expect(r.stderr.length).toBe(100);
  });

  it("kills children a finished command left behind in its process group", async () => {
    const pidfile = join(tempDir("leave"), "pid");
    const r = await runProcess(spec([join(FIXTURES, "leave-child.mjs"), pidfile]));
    expect(r.exitCode).toBe(0);
    const pid = Number(readFileSync(pidfile, "utf8"));
    await eventually(() => expect(processGone(pid)).toBe(true), 5_000);
  });

  it("kills the whole group when the signal aborts", async () => {
    const pidfile = join(tempDir("hang"), "pid");
    const controller = new AbortController();
    const running = runProcess(spec([join(FIXTURES, "hang-with-child.mjs"), pidfile], { signal: controller.signal }));
    const pids = await eventually(() => readFileSync(pidfile, "utf8").split(" ").map(Number));
    controller.abort();
    expect(await running).toMatchObject({ aborted: true, exitCode: null, signal: "SIGKILL" });
    await eventually(() => expect(pids.every(processGone)).toBe(true), 5_000);
  });

  it("rejects when the command does not exist", async () => {
    await expect(runProcess(spec([], { command: "/no/such/command" }))).rejects.toThrow(/ENOENT/);
  });

  it("runs a command in a network namespace of its own where the machine allows it", async () => {
    const sandbox = await probeNetworkSandbox();
    // root on Linux (CI and dev machines here) can always do this; elsewhere the probe says why not
    if (!sandbox.available) {
      expect(sandbox.reason).not.toBe("");
      return;
    }
    const line = wrapNoNetwork(sandbox, NODE, ["-e", "process.stdout.write(JSON.stringify(Object.keys(require('os').networkInterfaces())))"]);
    const r = await runProcess(spec(line.args, { command: line.command }));
    expect(JSON.parse(r.stdout.toString())).toEqual([]);
  });
});
