import { existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readEvent } from "@warden/bus";
import { readArtifactJson } from "@warden/executor";
import { createAgentClient, createApproverClient, type AgentClient, type ApproverClient } from "@warden/sdk";
import { eventually } from "@warden/testing";
import { FIXTURES, NODE, processesTagged, useAdaptersWarden, tempDir, TEST_POLICY, uniqueTag, writeManifest } from "../../test/harness.js";
import { cardWithPreview } from "../../test/approval-card.js";

const obj = (properties: Record<string, unknown>, required: string[] = []) => ({ type: "object", properties, required, additionalProperties: false });
const tool = (name: string, description: string, extra: Record<string, unknown>) => ({
  name,
  version: "1.0.0",
  title: name,
  description,
  grade: "read",
  inputSchema: obj({}),
  ...extra,
});

describe("CLI adapter: commands run sandboxed through the full chain", () => {
  // a model's call of the note tool waits for alice, so its card shows the dry run
  const w = useAdaptersWarden({ ...TEST_POLICY, llm: { showWrite: ["clitest.note"] } });
  let agent: AgentClient;
  let alice: ApproverClient;
  let work: string;
  let tcp: Server;
  let port: number;

  beforeAll(async () => {
    work = tempDir("cli");
    mkdirSync(join(work, "root", "sub"), { recursive: true });
    mkdirSync(join(work, "outside"));
    mkdirSync(join(work, "notes"));
    symlinkSync(join(work, "outside"), join(work, "root", "escape"));
    writeFileSync(join(work, "outside", "secret.txt"), "outside the roots\n");
    writeFileSync(join(work, "root", "sub", "hello.txt"), "hello from inside\n");
    tcp = createServer((s) => s.end());
    await new Promise<void>((r) => tcp.listen(0, "127.0.0.1", r));
    port = (tcp.address() as { port: number }).port;
    process.env["WARDEN_TEST_LEAK"] = "leaked-parent-value";
    const loaded = await writeManifest(work, "clitest.yaml", {
      domain: "clitest",
      tools: [
        tool("env", "Use to see the environment, working directory and argv a command gets.", {
          inputSchema: obj({ a: { type: "string" }, b: { type: "integer" }, dir: { type: "string" }, loud: { type: "boolean" } }, ["a"]),
          cli: {
            command: NODE,
            argv: [join(FIXTURES, "print-env.mjs"), "{a}", "--b={b}", { when: "loud", argv: ["--loud"] }],
            roots: ["root"],
            cwd: "{dir}",
            env: { allow: ["ALLOWED_VAR"], set: { FIXED: "fixed-value" } },
            output: "json",
          },
        }),
        tool("hang", "Use to start a command that never ends, with a child of its own.", {
          inputSchema: obj({ pidfile: { type: "string" } }, ["pidfile"]),
          timeoutMs: 1_500,
          cli: { command: NODE, argv: [join(FIXTURES, "hang-with-child.mjs"), "{pidfile}"], roots: ["root"] },
        }),
        tool("cat", "Use to print a file inside the tool's folder.", {
          inputSchema: obj({ file: { type: "string", format: "path" } }, ["file"]),
          cli: { command: "cat", argv: ["--", "{file}"], roots: ["root"] },
        }),
        tool("detach", "Use to start a command that leaves a detached process of its own session behind, then hangs.", {
          inputSchema: obj({ tag: { type: "string" } }, ["tag"]),
          // long enough for the grandchild (a node process) to start on a loaded machine before the kill
          timeoutMs: 10_000,
          cli: {
            command: "/bin/sh",
            // as a shell user would: setsid nohup … &, then wait forever
            argv: ["-c", 'setsid nohup "$0" -e "setInterval(() => {{}}, 1000)" "$1" >/dev/null 2>&1 & sleep 600', NODE, "{tag}"],
            roots: ["root"],
          },
        }),
        tool("connect", "Use to try a TCP connection to a local port with no network.", {
          inputSchema: obj({ port: { type: "integer" } }, ["port"]),
          cli: { command: NODE, argv: [join(FIXTURES, "connect.mjs"), "{port}"], roots: ["root"], output: "json" },
        }),
        tool("connect-host", "Use to try a TCP connection to a local port with the host network.", {
          inputSchema: obj({ port: { type: "integer" } }, ["port"]),
          cli: { command: NODE, argv: [join(FIXTURES, "connect.mjs"), "{port}"], roots: ["root"], output: "json", network: "host" },
        }),
        tool("fail", "Use to run a command that fails with exit code 3.", {
          cli: { command: NODE, argv: ["-e", "process.stderr.write('disk on fire\\n'); process.exit(3)"], roots: ["root"] },
        }),
        tool("lines", "Use to print many JSON lines, more than fit in an event.", {
          inputSchema: obj({ n: { type: "integer", minimum: 1 } }, ["n"]),
          cli: { command: NODE, argv: [join(FIXTURES, "big-output.mjs"), "FIXED", "{n}"], roots: ["root"], env: { set: { FIXED: "x" } }, output: "jsonl" },
        }),
        tool("note", "Use to write a short note file into the notes folder, for tests of dry runs and hooks.", {
          grade: "write",
          inputSchema: obj({ name: { type: "string", pattern: "^[a-z0-9-]+$" }, text: { type: "string" } }, ["name", "text"]),
          cli: { command: NODE, argv: [join(FIXTURES, "note.mjs"), "{name}", "{text}"], roots: ["notes"], output: "json" },
          preview: { argv: [join(FIXTURES, "note.mjs"), "--dry-run", "{name}", "{text}"] },
          preCall: { command: NODE, argv: [join(FIXTURES, "note-hook.mjs"), "preCall"] },
          verify: { command: NODE, argv: [join(FIXTURES, "note-hook.mjs"), "verify"] },
          postCall: { command: NODE, argv: [join(FIXTURES, "note-hook.mjs"), "postCall"] },
        }),
      ],
    });
    // the adapters run as their domain's executor identity, the agent as itself
    await w.startAdapters([loaded], { env: { ...process.env, ALLOWED_VAR: "allowed-value" } });
    agent = createAgentClient({ bus: await w.agentBus("agent"), principal: "agent", mode: "plan", timeoutMs: 15_000 });
    alice = createApproverClient({ bus: await w.humanBus("alice"), approver: "alice" });
  });
  afterAll(async () => {
    delete process.env["WARDEN_TEST_LEAK"];
    tcp?.close();
  });

  it("runs the command with its argv filled from the args, no shell, in the working directory asked for", async () => {
    const r = await agent.call("clitest.env", { a: "two words; $(rm -rf /)", b: 7, dir: "sub", loud: true });
    expect(r).toMatchObject({ ok: true, status: "succeeded" });
    const data = r.data as { exitCode: number; network: string; stdout: { argv: string[]; cwd: string } };
    expect(data.stdout.argv).toEqual(["two words; $(rm -rf /)", "--b=7", "--loud"]);
    expect(data.stdout.cwd).toBe(realpathSync(join(work, "root", "sub")));
    expect(data).toMatchObject({ exitCode: 0, network: "none" });
  });

  it("gives the command only its allow-listed and fixed variables, nothing else of the parent's environment", async () => {
    const r = await agent.call("clitest.env", { a: "x" });
    const env = (r.data as { stdout: { env: Record<string, string> } }).stdout.env;
    expect(env).toMatchObject({ ALLOWED_VAR: "allowed-value", FIXED: "fixed-value" });
    expect(env).not.toHaveProperty("WARDEN_TEST_LEAK");
    expect(env).not.toHaveProperty("HOME");
    // PWD is set by the sandbox (bubblewrap) to the working directory the command runs in
    expect(Object.keys(env).sort()).toEqual(["ALLOWED_VAR", "FIXED", "PATH", "PWD"]);
    expect(env["PWD"]).toBe(realpathSync(join(work, "root")));
  });

  it("refuses a working directory outside its roots before running anything, also through a symlink", async () => {
    for (const dir of ["../outside", "/etc", "escape"]) {
      const r = await agent.call("clitest.env", { a: "x", dir });
      expect(r, dir).toMatchObject({ ok: false, status: "rejected", error: { code: "INVALID_ARGS", message: expect.stringMatching(/outside the tool's roots/) } });
      expect(await readEvent(w.bus, "clitest", r.callId, "ToolCallStarted")).toBeUndefined();
    }
  });

  it("refuses an arg that would become an option of the command", async () => {
    const r = await agent.call("clitest.env", { a: "--inspect=0.0.0.0:9229" });
    expect(r).toMatchObject({ status: "rejected", error: { code: "INVALID_ARGS", message: expect.stringMatching(/may not start with "-"/) } });
  });

  it("kills a command that outlives its timeout together with its children", async () => {
    const pidfile = join(work, "root", "child.pid");
    const r = await agent.call("clitest.hang", { pidfile });
    expect(r).toMatchObject({ ok: false, status: "failed", error: { code: "TIMEOUT" } });
    const [, childPid] = readFileSync(pidfile, "utf8").split(" ").map(Number);
    expect(childPid).toBeGreaterThan(0);
    // the pids in the file may be those of the command's own PID namespace: find the processes by their argv
    await eventually(() => expect(processesTagged(pidfile)).toEqual([]), 5_000);
  });

  it("kills a detached grandchild in a session of its own at the timeout", async () => {
    const tag = uniqueTag("detach");
    const calling = agent.call("clitest.detach", { tag });
    // it did start: the grandchild (the node process, not the unshare and sh above it that carry
    // the tag in their argv too) runs while the call does
    // (the sh -c script names setInterval too: only the node process has it as its -e argument)
    const grandchild = () => processesTagged(tag).filter((pid) => readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[1] === "-e");
    await eventually(() => expect(grandchild()).toHaveLength(1), 10_000);
    const r = await calling;
    expect(r).toMatchObject({ ok: false, status: "failed", error: { code: "TIMEOUT" } });
    await eventually(() => expect(processesTagged(tag)).toEqual([]), 8_000);
  });

  it("refuses a path arg outside the roots before running anything: /etc/passwd, and a symlink inside that leads out", async () => {
    for (const file of ["/etc/passwd", "escape/secret.txt", "../outside/secret.txt"]) {
      const r = await agent.call("clitest.cat", { file });
      expect(r, file).toMatchObject({ ok: false, status: "rejected", error: { code: "INVALID_ARGS", message: expect.stringMatching(/^file: .* is outside the tool's roots/) } });
      expect(await readEvent(w.bus, "clitest", r.callId, "ToolCallStarted")).toBeUndefined();
    }
  });

  it("reads a path arg inside the roots, and records the confined path as what the read tool read", async () => {
    const r = await agent.call("clitest.cat", { file: "sub/hello.txt" });
    expect(r).toMatchObject({ ok: true, data: { exitCode: 0, stdout: "hello from inside\n" } });
    const finished = await readEvent(w.bus, "clitest", r.callId, "ToolCallFinished");
    expect(finished?.data.effectsObserved).toEqual({ reads: [realpathSync(join(work, "root", "sub", "hello.txt"))], writes: [], external: [] });
  });

  it("cuts the command off the network unless the manifest declares host, and says which it got", async () => {
    const none = await agent.call("clitest.connect", { port });
    expect(none.data).toMatchObject({ network: "none", stdout: { connected: false } });
    const host = await agent.call("clitest.connect-host", { port });
    expect(host.data).toMatchObject({ network: "host", stdout: { connected: true } });
  });

  it("turns a failing exit code into an error result that carries the code and the end of stderr", async () => {
    const r = await agent.call("clitest.fail", {});
    expect(r).toMatchObject({
      ok: false,
      status: "failed",
      error: { code: "HANDLER_ERROR", retryable: false, message: expect.stringMatching(/exited with code 3: disk on fire/), details: { exitCode: 3 } },
    });
  });

  it("parses JSON lines and stores output over the preview limit as an artifact with a valid preview", async () => {
    const r = await agent.call("clitest.lines", { n: 2_000 });
    expect(r).toMatchObject({ ok: true, truncated: true });
    const preview = r.data as { stdout: unknown[] };
    expect(Array.isArray(preview.stdout)).toBe(true);
    const artifact = r.artifacts![0]!;
    const full = await readArtifactJson(w.bus, artifact.id);
    expect(full.ok && (full.value as { stdout: unknown[] }).stdout).toHaveLength(2_000);
  });

  describe("a write tool with a dry run and preCall, verify and postCall commands", () => {
    const notes = () => join(work, "notes");
    const hooksRan = () => (existsSync(join(notes(), "hooks.log")) ? readFileSync(join(notes(), "hooks.log"), "utf8").trim().split("\n") : []);

    it("puts the command's own dry run on the approval card, changing nothing, and runs preCall, verify and postCall once approved", async () => {
      const asked = await agent.call("clitest.note", { name: "first", text: "hello" }, { mode: "llm" });
      expect(asked).toMatchObject({ status: "awaiting_approval" });
      const card = await cardWithPreview(alice, asked.callId);
      expect(card.preview).toMatchObject({ data: { wouldWrite: "first.txt", exists: false, text: "hello" }, executorId: expect.any(String) });
      // the dry run wrote nothing and ran no hook
      expect(existsSync(join(notes(), "first.txt"))).toBe(false);
      expect(hooksRan()).toEqual([]);

      expect(await alice.approve(card.approvalId, card.argsHash)).toMatchObject({ ok: true });
      expect(await agent.awaitCall(asked.callId, "clitest.note", { timeoutMs: 15_000 })).toMatchObject({ ok: true, data: { stdout: { wrote: "first.txt" } } });
      expect(readFileSync(join(notes(), "first.txt"), "utf8")).toBe("hello");
      const validated = await readEvent(w.bus, "clitest", asked.callId, "ToolResultValidated");
      expect(validated?.data).toMatchObject({ ok: true, checks: [{ check: "verify", ok: true }] });
      // postCall runs once the outcome is recorded, and gets the result as recorded
      const postCall = join(notes(), "first.postcall.json");
      await eventually(() => expect(existsSync(postCall)).toBe(true));
      expect(JSON.parse(readFileSync(postCall, "utf8"))).toEqual({
        tool: "clitest.note",
        callId: asked.callId,
        principal: "agent",
        onBehalfOf: "agent",
        args: { name: "first", text: "hello" },
        result: { ok: true, truncated: false, output: expect.objectContaining({ exitCode: 0, stdout: { wrote: "first.txt" } }) },
      });
      expect(hooksRan()).toEqual(["preCall first", "verify first", "postCall first"]);
    });

    it("fails PRECALL_REFUSED with the first line of the preCall command's stderr, and the tool's command never runs", async () => {
      const r = await agent.call("clitest.note", { name: "locked-one", text: "x" });
      expect(r).toMatchObject({ ok: false, status: "failed", error: { code: "PRECALL_REFUSED", message: expect.stringMatching(/: note locked-one is locked$/) } });
      expect(existsSync(join(notes(), "locked-one.txt"))).toBe(false);
      expect(hooksRan().filter((l) => l.endsWith(" locked-one"))).toEqual(["preCall locked-one"]);
    });

    it("fails VERIFY_FAILED when the verify command refuses the result, and records what it found as ToolResultValidated", async () => {
      const r = await agent.call("clitest.note", { name: "long", text: "more than ten characters" });
      expect(r).toMatchObject({ ok: false, status: "failed", error: { code: "VERIFY_FAILED", message: expect.stringMatching(/long\.txt holds "more than ", not what was asked/) } });
      const validated = await readEvent(w.bus, "clitest", r.callId, "ToolResultValidated");
      expect(validated?.data).toMatchObject({ ok: false, checks: [{ check: "verify", ok: false, message: 'long.txt holds "more than ", not what was asked' }], error: { code: "VERIFY_FAILED" } });
      // postCall still follows a failed outcome
      await eventually(() => expect(hooksRan().filter((l) => l.endsWith(" long"))).toEqual(["preCall long", "verify long", "postCall long"]));
    });
  });
});
