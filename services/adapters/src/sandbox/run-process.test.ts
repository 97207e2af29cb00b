import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { eventually } from "@warden/testing";
import { FIXTURES, NODE, processesTagged, processGone, tempDir, uniqueTag } from "../../test/harness.js";
import { confineCommand } from "./confine-command.js";
import { probeNetworkSandbox, wrapNoNetwork } from "./network-sandbox.js";
import { probePidNamespace } from "./pid-namespace.js";
import { runProcess, type ProcessSpec } from "./run-process.js";

const pidNamespace = await probePidNamespace();

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

  it("kills a grandchild that started a session of its own when the signal aborts, even without a namespace", async () => {
    const tag = uniqueTag("setsid");
    const controller = new AbortController();
    const running = runProcess(spec([join(FIXTURES, "detach-grandchild.mjs"), tag], { signal: controller.signal }));
    // the command and its detached grandchild
    await eventually(() => expect(processesTagged(tag)).toHaveLength(2));
    controller.abort();
    expect(await running).toMatchObject({ aborted: true });
    await eventually(() => expect(processesTagged(tag)).toEqual([]), 5_000);
  });

  describe.runIf(pidNamespace.available)("in a PID namespace of its own", () => {
    const layers = pidNamespace.available ? [pidNamespace] : [];
    const confined = (args: string[], over: Partial<ProcessSpec> = {}) => {
      const line = confineCommand(NODE, args, layers);
      return spec(line.args, { command: line.command, ...over });
    };

    it("kills a detached grandchild when the signal aborts", async () => {
      const tag = uniqueTag("pidns");
      const controller = new AbortController();
      const running = runProcess(confined([join(FIXTURES, "detach-grandchild.mjs"), tag], { signal: controller.signal }));
      await eventually(() => expect(processesTagged(tag)).toHaveLength(2));
      controller.abort();
      expect(await running).toMatchObject({ aborted: true });
      await eventually(() => expect(processesTagged(tag)).toEqual([]), 5_000);
    });

    it("kills a detached grandchild the command orphaned before it exited", async () => {
      const tag = uniqueTag("orphan");
      const r = await runProcess(confined([join(FIXTURES, "detach-grandchild.mjs"), tag, "exit"]));
      expect(r).toMatchObject({ exitCode: 0, aborted: false });
      expect(r.stdout.toString()).toBe("started\n");
      await eventually(() => expect(processesTagged(tag)).toEqual([]), 5_000);
    });

    it("passes the command's exit code through", async () => {
      const r = await runProcess(confined(["-e", "process.exit(3)"]));
      expect(r.exitCode).toBe(3);
    });
  });
});
