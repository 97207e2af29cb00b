import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createAgentClient, createRegistryClient, type AgentClient } from "@warden/sdk";
import { stringify } from "yaml";
import { eventually } from "@warden/testing";
import { NODE, useAdaptersWarden, tempDir, TEST_POLICY } from "../test/harness.js";
import { AdapterConfigError } from "./adapter-errors.js";
import { startAdaptersService } from "./service.js";
import { loadManifestDir, ManifestError } from "./manifest/load-manifests.js";

const MAIN = join(import.meta.dirname, "../dist/main.js");
const EXAMPLES = join(import.meta.dirname, "../examples/manifests");

const echoTool = (domain: string, trusted = false) => ({
  domain,
  tools: [
    {
      name: "echo",
      version: "1.0.0",
      title: "Echo",
      description: "Use to echo a word back from a command.",
      grade: "read",
      inputSchema: { type: "object", properties: { word: { type: "string" } }, required: ["word"] },
      cli: { command: NODE, argv: ["-e", "process.stdout.write(process.argv[1])", "{word}"], roots: ["."], trusted },
    },
  ],
});

describe("the adapters service: a folder of manifests, one executor per domain", () => {
  const w = useAdaptersWarden(TEST_POLICY);
  let agent: AgentClient;

  beforeAll(async () => {
    agent = createAgentClient({ bus: await w.agentBus("agent"), principal: "agent", mode: "llm", timeoutMs: 15_000 });
  });

  /** The adapters run as the executor identity of their manifests' domains, with the approver key pinned. */
  const asAdapters = async (domains: readonly string[]) => ({ bus: await w.executorBus(domains), log: w.log, approverKeys: w.approverKeys });
  /** What an adapters process gets from its deployment: where NATS is, its credentials, the pinned key. */
  const processEnv = async (domains: readonly string[]) => ({
    PATH: process.env["PATH"] ?? "",
    NATS_URL: w.nats.url,
    NATS_CREDS: await w.executorCreds(domains),
    WARDEN_APPROVER_PUBLIC_KEYS: w.approverKeys.join(","),
  });

  it("loads every manifest of a folder and runs each domain", async () => {
    const dir = tempDir("folder");
    writeFileSync(join(dir, "one.yaml"), stringify(echoTool("one")));
    writeFileSync(join(dir, "two.json"), JSON.stringify(echoTool("two")));
    writeFileSync(join(dir, "notes.txt"), "not a manifest");
    const service = w.track(await startAdaptersService({ ...(await asAdapters(["one", "two"])), manifests: dir, env: {} }));
    expect(service.domains.map((d) => d.domain)).toEqual(["one", "two"]);
    expect(await agent.call("two.echo", { word: "hello" })).toMatchObject({ ok: true, data: { stdout: "hello" } });
  });

  it("refuses a folder with an invalid manifest or two manifests for one domain, naming the files", async () => {
    const dir = tempDir("bad-folder");
    writeFileSync(join(dir, "a.yaml"), stringify(echoTool("same")));
    writeFileSync(join(dir, "b.yaml"), stringify(echoTool("same")));
    writeFileSync(join(dir, "c.yaml"), "domain: c\ntools:\n  - name: x\n");
    const err = await loadManifestDir(dir).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ManifestError);
    expect((err as Error).message).toMatch(/c\.yaml:3:\d+: tools\[0\]/);
    expect((err as Error).message).toMatch(/b\.yaml: domain same is already declared by .*a\.yaml/);
  });

  it("never runs an untrusted tool unconfined where the tools' sandbox is unavailable: SANDBOX_UNAVAILABLE, while a trusted one runs", async () => {
    const dir = tempDir("no-bwrap");
    writeFileSync(join(dir, "a.yaml"), stringify(echoTool("nobwrap")));
    writeFileSync(join(dir, "b.yaml"), stringify(echoTool("nobwraptrusted", true)));
    w.track(
      await startAdaptersService({ ...(await asAdapters(["nobwrap", "nobwraptrusted"])), manifests: dir, env: {}, toolSandbox: { available: false, reason: "no bwrap on this test machine" } }),
    );
    const refused = await agent.call("nobwrap.echo", { word: "hello" });
    expect(refused).toMatchObject({ ok: false, error: { code: "SANDBOX_UNAVAILABLE", retryable: false } });
    expect(refused.error?.message).toMatch(/no bwrap on this test machine.*trusted: true/);
    expect(await agent.call("nobwraptrusted.echo", { word: "hello" })).toMatchObject({ ok: true, data: { stdout: "hello" } });
  });

  it("refuses to start a trusted tool that needs no network where no network sandbox is available", async () => {
    const dir = tempDir("no-sandbox");
    writeFileSync(join(dir, "x.yaml"), stringify(echoTool("nosandbox", true)));
    await expect(
      startAdaptersService({ ...(await asAdapters(["nosandbox"])), manifests: dir, env: {}, sandbox: { available: false, reason: "test machine" } }),
    ).rejects.toThrow(AdapterConfigError);
  });

  it("refuses to start a domain whose MCP server cannot be started, saying why", async () => {
    const dir = tempDir("bad-mcp");
    writeFileSync(join(dir, "m.yaml"), stringify({ domain: "badmcp", mcp: { transport: "stdio", command: NODE, args: ["-e", "process.exit(1)"], connectTimeoutMs: 2_000 } }));
    const err = await startAdaptersService({ ...(await asAdapters(["badmcp"])), manifests: dir, env: {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AdapterConfigError);
    expect((err as Error).message).toMatch(/m\.yaml: the MCP server cannot be used: /);
  });

  it("runs the example manifests the documentation shows", async () => {
    const loaded = await loadManifestDir(EXAMPLES);
    expect(loaded.map((l) => l.manifest.domain).sort()).toEqual(["everything", "files", "weather"]);
    w.track(await startAdaptersService({ ...(await asAdapters(loaded.map((l) => l.manifest.domain))), manifests: loaded, env: { PATH: process.env["PATH"] } }));
    const grep = await agent.call("files.grep", { pattern: "domain: files" });
    expect(grep).toMatchObject({ ok: true, data: { exitCode: 0, stdout: expect.stringContaining("files.yaml") } });
    const records = await createRegistryClient(w.bus).list();
    expect(records.ok && records.value.find((t) => t.descriptor.name === "everything.get-env")).toMatchObject({ status: "discovered", descriptor: { grade: "send" } });
  });

  it("runs as a process from WARDEN_MANIFESTS_DIR and stops cleanly on SIGTERM", async () => {
    const dir = tempDir("main");
    mkdirSync(join(dir, "manifests"));
    writeFileSync(join(dir, "manifests", "proc.yaml"), stringify(echoTool("proc")));
    const child = spawn(NODE, [MAIN], {
      env: { ...(await processEnv(["proc"])), WARDEN_MANIFESTS_DIR: join(dir, "manifests"), LOG_LEVEL: "warn" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
    await eventually(async () => {
      const records = await createRegistryClient(w.bus).list();
      expect(records.ok && records.value.some((t) => t.descriptor.name === "proc.echo")).toBe(true);
    }, 15_000);
    expect(await agent.call("proc.echo", { word: "from-a-process" })).toMatchObject({ ok: true, data: { stdout: "from-a-process" } });
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  });

  it("exits with the manifest's error when a manifest is invalid", async () => {
    const dir = tempDir("main-bad");
    writeFileSync(join(dir, "bad.yaml"), "domain: bad\ntools: []\n");
    const child = spawn(NODE, [MAIN], { env: { ...(await processEnv(["bad"])), WARDEN_MANIFESTS_DIR: dir, LOG_LEVEL: "silent" }, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => void (stderr += c.toString()));
    const code = await new Promise<number | null>((r) => child.once("exit", (c) => r(c)));
    expect(code).toBe(1);
    expect(stderr).toMatch(/bad\.yaml:1:1: a manifest needs tools, an mcp server, or both/);
  });
});
