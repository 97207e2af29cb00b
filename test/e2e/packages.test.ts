import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestWarden, type TestWarden } from "../support/warden.js";

/**
 * The installable packages, tried as a user outside this repository would: `npm pack` each one,
 * install the tarballs into a scratch project in a temp dir, and run an executor and an agent
 * from there against a real Warden. npm resolves the packages' outside dependencies (zod, the
 * nats.js client, pino, yaml) from its cache or the registry (`--prefer-offline`): on a machine
 * with neither, the install step fails and says so. About 15-25 s, most of it npm.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
/** The packages a user installs, with the internal ones they depend on (each its own tarball). */
const PACKAGES = ["@warden/contracts", "@warden/bus", "@warden/projections", "@warden/sdk", "@warden/service-kit", "@warden/executor"] as const;
const TSC = join(ROOT, "node_modules/typescript/bin/tsc");

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** npm run by a test must not think it works on this workspace (`npm test` exports its settings). */
function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  const keep = Object.entries(process.env).filter(
    (e): e is [string, string] =>
      e[1] !== undefined &&
      !/^npm_(package|lifecycle)_/i.test(e[0]) &&
      !/^npm_config_(workspace|workspaces|include_workspace_root|global|prefix|local_prefix)$/i.test(e[0]) &&
      !["NATS_URL", "NATS_CREDS", "WARDEN_HOME"].includes(e[0]),
  );
  return { ...Object.fromEntries(keep), ...extra };
}

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
import { ToolResultSchema } from "@warden/contracts";
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
import { ToolResultSchema, type ToolDescriptor } from "@warden/contracts";
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
      const dist = join(ROOT, "node_modules", name, "dist/index.js");
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

  it("packs each package with its dist, types, exports map and README, and nothing of its tests", async () => {
    const packed = await run("npm", ["pack", ...PACKAGES.flatMap((p) => ["-w", p]), "--pack-destination", dir, "--json"], ROOT);
    expect(packed.code, packed.stderr).toBe(0);
    const reports = JSON.parse(packed.stdout) as { name: string; filename: string; files: { path: string }[] }[];
    expect(reports.map((r) => r.name).sort()).toEqual([...PACKAGES].sort());
    for (const r of reports) {
      const files = r.files.map((f) => f.path);
      expect(files, r.name).toContain("README.md");
      expect(files, r.name).toContain("dist/index.js");
      expect(files, r.name).toContain("dist/index.d.ts");
      expect(files.filter((f) => /\.test\.|tsbuildinfo|tsconfig/.test(f)), r.name).toEqual([]);
      const manifest = JSON.parse(readFileSync(join(ROOT, "node_modules", r.name, "package.json"), "utf8")) as { exports: Record<string, unknown> };
      expect(manifest.exports["."], r.name).toEqual({ types: "./dist/index.d.ts", default: "./dist/index.js" });
    }
    tarballs = reports.map((r) => join(dir, r.filename));
  });

  it("installs the tarballs into a scratch project (outside the workspace) and type-checks a program against them", async () => {
    expect(tarballs).toHaveLength(PACKAGES.length);
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "warden-scratch", private: true, type: "module" }));
    const installed = await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts", ...tarballs, "zod@^4.1.0"], app);
    expect(installed.code, `npm install failed (it needs the npm cache or registry for zod, @nats-io/*, pino, yaml):\n${installed.stderr}`).toBe(0);
    for (const name of PACKAGES) expect(existsSync(join(app, "node_modules", name, "dist/index.js")), name).toBe(true);
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
