import { spawn } from "node:child_process";
import { join } from "node:path";
import { silentLogger } from "@warden/bus";
import { startRegistryService, type RegistryService } from "@warden/registry";
import { createRegistryClient } from "@warden/sdk";
import type { TestNats } from "@warden/testing";

const ROOT = join(import.meta.dirname, "../..");

export interface ServiceExit {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `services/<service>/dist/main.js` as an operator would (only PATH and `env`); `onStdout` sees all output so far and can stop it (SIGTERM). */
export function runServiceMain(service: string, env: NodeJS.ProcessEnv, onStdout?: (text: string, stop: () => void) => void): Promise<ServiceExit> {
  return runProcessMain(join("services", service, "dist/main.js"), [], env, onStdout);
}

/** Runs a built entry point of the repo (`cli/dist/colocated-main.js`) with `args`, as {@link runServiceMain} does. */
export function runProcessMain(entry: string, args: readonly string[], env: NodeJS.ProcessEnv, onStdout?: (text: string, stop: () => void) => void): Promise<ServiceExit> {
  const child = spawn(process.execPath, [join(ROOT, entry), ...args], { env: { PATH: process.env["PATH"] ?? "", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => {
    stdout += c.toString();
    onStdout?.(stdout, () => child.kill("SIGTERM"));
  });
  child.stderr.on("data", (c: Buffer) => void (stderr += c.toString()));
  if (process.env["DEBUG_SP"]) child.stdout.pipe(process.stderr);
  return new Promise((resolve) => child.once("exit", (code) => resolve({ code, stdout, stderr })));
}

/** A registry in this process with `kb.search` registered: what a policy process needs to decide one call. */
export async function startRegistryWithKbSearch(nats: TestNats): Promise<RegistryService> {
  const admin = await nats.bus("setup");
  const registry = await startRegistryService({ bus: await nats.connectAs({ kind: "service", name: "registry-0", role: "registry" }), log: silentLogger() });
  const descriptor = { name: "kb.search", version: "1.0.0", title: "Search", description: "Use when the support desk needs it.", inputSchema: { type: "object" }, grade: "read" as const, idempotent: true };
  const registered = await createRegistryClient(admin).register([descriptor]);
  if (!registered.ok) throw new Error(`kb.search not registered: ${registered.error.message}`);
  return registry;
}
