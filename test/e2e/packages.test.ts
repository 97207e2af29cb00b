import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INSTALLABLE_PACKAGES, npmEnv, PACK_DIR } from "../../scripts/pack-packages.js";
import { startTestWarden, type TestWarden } from "../support/warden.js";

/**
 * The installable packages, tried as a user outside this repository would: `npm run pack`'s script
 * packs them into dist-packages/, the README's install line installs the tarballs into a scratch
 * project in a temp dir, and an executor and an agent run from there against a real Warden. npm
 * resolves the packages' outside dependencies (zod, the nats.js client, pino, yaml) from its cache
 * or the registry (`--prefer-offline`): on a machine with neither, the install step fails and says
 * so. About 15-25 s, most of it npm.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const PACKAGES = INSTALLABLE_PACKAGES;
const TSC = join(ROOT, "node_modules/typescript/bin/tsc");
/** `npm run pack` without its build step (the tests run on a built tree). */
const PACK_SCRIPT = join(ROOT, "scripts/pack-packages.ts");
/** Where the README's install line says the repository is. */
const README_ROOT = "/path/to/warden";

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** npm run by a test must not think it works on this workspace (`npm test` exports its settings). */
const childEnv = npmEnv;

function run(file: string, args: readonly string[], cwd: string, env: Record<string, string> = childEnv(), timeoutMs = 120_000): Promise<Run> {
  return new Promise((done) => {
    execFile(file, args, { cwd, env, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      done({ code: err ? (typeof err.code === "number" ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

const EXECUTOR = `
import { z } from "zod";
import { connectBus, loadBusConfig, silentLogger } from "@warden/bus";
import { defineTool, loadApproverKeys, startExecutor } from "@warden/executor";
import { runTool } from "@warden/executor/testing";

const echo = defineTool({
  name: "pkgdemo.echo",
  version: "1.0.0",
  title: "Echo",
  description: "Use when you want your words back, to check that an installed executor runs.",
  grade: "read",
  idempotent: true,
  input: z.object({ text: z.string() }),
  handler: ({ text }, ctx) => ({ echoed: text, by: "installed-executor", principal: ctx.principal }),
});

// a domain team's unit test, from the installed testing entry point
const unit = await runTool(echo, { text: "unit" });
if (!unit.ok) throw new Error("runTool failed: " + JSON.stringify(unit));

const bus = await connectBus(loadBusConfig(process.env), "pkgdemo-executor");
const executor = await startExecutor({ bus, log: silentLogger(), domain: "pkgdemo", tools: [echo], approverKeys: loadApproverKeys(process.env) });
process.stdout.write("ready\\n");
process.once("SIGTERM", async () => {
  await executor.stop();
  await bus.close();
  process.exit(0);
});
`;

const AGENT = `
import { connectBus, loadBusConfig } from "@warden/bus";
import { ToolResultSchema } from "@warden/contracts/events";
import resultSchema from "@warden/contracts/schema/tool-result.json" with { type: "json" };
import { createAgentClient, toModelMessage } from "@warden/sdk";

const bus = await connectBus(loadBusConfig(process.env), "pkgdemo-agent");
const agent = createAgentClient({ bus, principal: process.env.AGENT_PRINCIPAL, mode: "llm" });
const view = await agent.toolView({ format: "openai" });
const result = await agent.call("pkgdemo__echo", { text: "hello from a tarball" }, { timeoutMs: 20_000 });
process.stdout.write(JSON.stringify({
  tools: view.ok ? view.value.view.tools.map((t) => t.name) : view.error,
  result,
  valid: ToolResultSchema.safeParse(result).success,
  schemaId: resultSchema.$id,
  message: toModelMessage(result),
}) + "\\n");
await agent.close();
await bus.close();
`;

/** Type-checked against the installed packages' .d.ts: their exports maps and types, not \`any\`. */
const TYPES = `
import { createAgentClient, type AgentClient, type ToolResult } from "@warden/sdk";
import { connectBus, loadBusConfig, type Bus } from "@warden/bus";
import { defineTool, startExecutor } from "@warden/executor";
import { runTool } from "@warden/executor/testing";
import { ToolResultSchema } from "@warden/contracts/events";
import type { ToolDescriptor } from "@warden/contracts/descriptor";
import { z } from "zod";

export async function typed(bus: Bus): Promise<ToolResult> {
  const agent: AgentClient = createAgentClient({ bus, principal: "p" });
  const r: ToolResult = await agent.call("kb.search", {});
  // @ts-expect-error a mode is human, plan or llm
  createAgentClient({ bus, principal: "p", mode: "robot" });
  return ToolResultSchema.parse(r);
}

export const tool = defineTool({
  name: "d.t",
  version: "1.0.0",
  title: "t",
  description: "Use when a type check wants a tool.",
  grade: "read",
  input: z.object({ n: z.number() }),
  // @ts-expect-error the handler's args are the input's type
  handler: ({ n }: { n: string }) => n,
});
export const descriptor: ToolDescriptor = tool.descriptor;
export const run = () => runTool(tool, { n: 1 });
export const start = startExecutor;
export const connect = () => connectBus(loadBusConfig({}), "x");
`;

describe("the installable packages, packed and installed outside the workspace", { timeout: 180_000 }, () => {
  let w: TestWarden;
  let dir: string;
  let app: string;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    for (const name of PACKAGES) {
      const dist = join(ROOT, "node_modules", name, "dist");
      if (!existsSync(dist)) throw new Error(`${name} is not built (${dist} is missing): run \`npm run build\` first`);
    }
    w = await startTestWarden();
    dir = mkdtempSync(join(tmpdir(), "warden-packages-"));
    app = join(dir, "app");
    mkdirSync(app);
  }, 60_000);

  afterAll(async () => {
    for (const c of children) c.kill("SIGTERM");
    await w?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  let tarballs: string[] = [];

  it("packs each package (npm run pack) with its dist, types, exports map, README and publish metadata, and nothing of its tests", async () => {
    const packed = await run(process.execPath, [PACK_SCRIPT, "--json"], ROOT);
    expect(packed.code, packed.stderr).toBe(0);
    const reports = JSON.parse(packed.stdout) as { name: string; tarball: string; files: string[] }[];
    expect(reports.map((r) => r.name).sort()).toEqual([...PACKAGES].sort());
    const root = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string>; license: string; repository?: { url: string } };
    // what `npm run pack` runs after the build
    expect(root.scripts["pack"]).toBe("npm run build --silent && node scripts/pack-packages.ts");
    for (const r of reports) {
      expect(dirname(r.tarball), r.name).toBe(join(ROOT, PACK_DIR));
      const files = r.files;
      expect(files, r.name).toContain("README.md");
      expect(files.filter((f) => /\.test\.|tsbuildinfo|tsconfig/.test(f)), r.name).toEqual([]);
      const manifest = JSON.parse(readFileSync(join(ROOT, "node_modules", r.name, "package.json"), "utf8")) as Record<string, unknown> & { exports: Record<string, unknown> };
      // every entry point (the root, or sub-paths as @warden/contracts has) ships its code and its types
      const entries = Object.entries(manifest.exports).filter(([path]) => !path.endsWith(".json"));
      expect(entries.length, r.name).toBeGreaterThan(0);
      for (const [path, target] of entries) {
        expect(target, `${r.name} ${path}`).toEqual({ types: expect.stringMatching(/^\.\/dist\/.*\.d\.ts$/), default: expect.stringMatching(/^\.\/dist\/.*\.js$/) });
        const { types, default: code } = target as { types: string; default: string };
        expect(files, `${r.name} ${path}`).toEqual(expect.arrayContaining([types.slice(2), code.slice(2)]));
      }
      expect(manifest, r.name).toMatchObject({ license: root.license, engines: { node: expect.any(String) } });
      expect(manifest["repository"], r.name).toEqual(root.repository === undefined ? undefined : expect.objectContaining({ url: root.repository.url }));
      expect(manifest["private"], r.name).toBeUndefined();
    }
    tarballs = reports.map((r) => r.tarball);
  });

  it("refuses to pack a package that is not publish-ready, naming what is missing", async () => {
    const { publishProblems } = await import("../../scripts/pack-packages.js");
    const root = { name: "warden", license: "L", engines: { node: ">=22" }, repository: { url: "u" } };
    const ready = { name: "@warden/x", license: "L", description: "d", keywords: ["k"], engines: { node: ">=22" }, files: ["dist"], repository: { url: "u", directory: "libs/sdk" }, exports: { ".": { types: "./dist/index.d.ts", default: "./dist/index.js" } } };
    expect(publishProblems("@warden/x", "libs/sdk", ready, root)).toEqual([]);
    // no remote named in the root (as now): a package must not name one of its own
    const { repository: _r, ...noRemote } = root;
    const { repository: _m, ...readyNoRemote } = ready;
    expect(publishProblems("@warden/x", "libs/sdk", readyNoRemote, noRemote)).toEqual([]);
    expect(publishProblems("@warden/x", "libs/sdk", ready, noRemote)).toEqual(["@warden/x has a repository the root package.json does not name"]);
    expect(publishProblems("@warden/x", "libs/sdk", { ...ready, repository: { url: "u", directory: "libs/bus" } }, root)).toEqual(["@warden/x repository.directory is not libs/sdk"]);
    expect(publishProblems("@warden/x", "libs/sdk", { ...ready, private: true, license: undefined, keywords: [] }, root)).toEqual([
      "@warden/x is private",
      "@warden/x has no license",
      "@warden/x has no keywords",
      "@warden/x license undefined is not the root's L",
    ]);
    expect(publishProblems("@warden/x", "libs/sdk", { ...ready, exports: { "./package.json": "./package.json" } }, root)).toEqual(["@warden/x has no entry point in its exports map"]);
    expect(publishProblems("@warden/x", "libs/sdk", { ...ready, exports: { "./y": { types: "./dist/y.d.ts", default: "./dist/y.js" } } }, root)).toEqual([
      "@warden/x is not built (libs/sdk/dist/y.js missing): run `npm run build` first",
    ]);
  });

  it("installs the tarballs by the README's line into a scratch project (outside the workspace) and type-checks a program against them", async () => {
    expect(tarballs).toHaveLength(PACKAGES.length);
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "warden-scratch", private: true, type: "module" }));
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const line = readme.split("\n").find((l) => l.startsWith(`npm install ${README_ROOT}/${PACK_DIR}/`));
    expect(line, "README.md has the install line").toBe(`npm install ${README_ROOT}/${PACK_DIR}/*.tgz`);
    // the README's line, run by a shell (the glob), with this checkout for the path; offline where it can
    const command = `${line!.replace(README_ROOT, ROOT)} --prefer-offline --no-audit --no-fund --ignore-scripts zod@^4.1.0`;
    const installed = await run("sh", ["-c", command], app);
    expect(installed.code, `npm install failed (it needs the npm cache or registry for zod, @nats-io/*, pino, yaml):\n${installed.stderr}`).toBe(0);
    for (const name of PACKAGES) expect(existsSync(join(app, "node_modules", name, "dist")), name).toBe(true);
    // one copy of each internal package: the tarballs satisfy each other's dependencies
    expect(existsSync(join(app, "node_modules/@warden/sdk/node_modules"))).toBe(false);
    // the frameworks the sdk adapts to are optional peers: not installed unless the project asks
    expect(existsSync(join(app, "node_modules/@openai/agents"))).toBe(false);
    expect(existsSync(join(app, "node_modules/ai"))).toBe(false);

    writeFileSync(join(app, "typed.ts"), TYPES);
    writeFileSync(
      join(app, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext", target: "ES2023", strict: true, noEmit: true, types: ["node"], typeRoots: [join(ROOT, "node_modules/@types")] },
        files: ["typed.ts"],
      }),
    );
    const checked = await run(process.execPath, [TSC, "-p", "tsconfig.json"], app);
    expect(checked.stdout + checked.stderr).toBe("");
    expect(checked.code).toBe(0);
  });

  it("runs an executor and an agent from the scratch project against a real nats-server and Warden", async () => {
    writeFileSync(join(app, "executor.mjs"), EXECUTOR);
    writeFileSync(join(app, "agent.mjs"), AGENT);
    const executorCreds = await w.nats.credsOf({ kind: "executor", name: "pkgdemo", domains: ["pkgdemo"] });
    const agentCreds = await w.nats.credsOf({ kind: "agent", name: "pkg-agent" });
    const executor = spawn(process.execPath, ["executor.mjs"], {
      cwd: app,
      env: childEnv({ NATS_URL: w.nats.url, NATS_CREDS: executorCreds, WARDEN_APPROVER_PUBLIC_KEYS: w.approverKeys.join(",") }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.push(executor);
    await new Promise<void>((ready, failed) => {
      let err = "";
      executor.stderr!.on("data", (b: Buffer) => void (err += b.toString()));
      executor.stdout!.on("data", (b: Buffer) => {
        if (b.toString().includes("ready")) ready();
      });
      executor.once("exit", (code) => failed(new Error(`the installed executor exited ${code}: ${err}`)));
    });

    const agent = await run(process.execPath, ["agent.mjs"], app, childEnv({ NATS_URL: w.nats.url, NATS_CREDS: agentCreds, AGENT_PRINCIPAL: "pkg-agent" }), 60_000);
    expect(agent.code, agent.stderr).toBe(0);
    const out = JSON.parse(agent.stdout) as { tools: string[]; result: Record<string, unknown>; valid: boolean; schemaId: string; message: string };
    expect(out.tools).toEqual(["pkgdemo.echo"]);
    expect(out.result).toMatchObject({ ok: true, status: "succeeded", data: { echoed: "hello from a tarball", by: "installed-executor", principal: "pkg-agent" } });
    expect(out.valid).toBe(true);
    expect(out.schemaId).toBe("https://warden.dev/schema/tool-result.json");
    expect(out.message).toContain("hello from a tarball");
  });
});
