import type { JsonValue } from "@warden/contracts/json";
import type { Redactor } from "@warden/executor";
import { AdapterConfigError } from "../adapter-errors.js";
import { buildChildEnv } from "../domain/child-env.js";
import { resolveCommand, resolveRoot } from "../domain/paths.js";
import type { HookCommand } from "../manifest/manifest-schema.js";
import { confineToolProcess, type ToolConfinement } from "../sandbox/confine-tool-process.js";
import { startupPaths } from "../sandbox/tool-sandbox.js";
import type { NetworkSandbox } from "../sandbox/network-sandbox.js";
import type { PidNamespace } from "../sandbox/pid-namespace.js";
import { runProcess } from "../sandbox/run-process.js";
import type { UnshareLayer } from "../sandbox/unshare.js";

export type HookKind = "preCall" | "verify" | "postCall";

export interface HookCommandDeps {
  /** The manifest's folder: relative roots and commands are resolved against it. */
  readonly dir: string;
  readonly hostEnv: Readonly<Record<string, string | undefined>>;
  readonly sandbox: NetworkSandbox;
  readonly pidNamespace: PidNamespace;
  /** The tools' sandbox, which every hook runs in unless marked trusted, and what it hides. */
  readonly confinement: ToolConfinement;
}

/** Runs the hook on the call's JSON; answers why it refused (a non-zero exit), or undefined when it exited 0. */
export type HookRun = (input: JsonValue, signal: AbortSignal, redactor: Redactor) => Promise<string | undefined>;

/** A hook reads the call, it does not print a result: what it prints is read and dropped past these. */
const MAX_STDOUT = 64 * 1024;
const MAX_STDERR = 16 * 1024;
const MAX_REASON = 500;

/**
 * Builds a manifest hook's runner: its command, with its fixed argv, in its first root, with only
 * its allow-listed env and no network (always: a hook's network would be a capability the
 * descriptor does not show), in a PID namespace where the machine allows. Refused at start
 * (AdapterConfigError) when it cannot run so here.
 */
export function hookCommand(tool: string, kind: HookKind, hook: HookCommand, toolRoots: readonly string[] | undefined, deps: HookCommandDeps): HookRun {
  if (hook.trusted && !deps.sandbox.available) {
    throw new AdapterConfigError(
      `${tool}: its ${kind} command runs with no network, but this machine cannot start a process without network (${deps.sandbox.reason}); run the executor as root or where user namespaces are allowed`,
    );
  }
  const roots =
    hook.roots?.map((r) => {
      const real = resolveRoot(r, deps.dir);
      if (real === undefined) throw new AdapterConfigError(`${tool}: ${kind}.roots: ${r} does not exist (relative to ${deps.dir})`);
      return real;
    }) ?? toolRoots;
  const cwd = roots?.[0];
  if (cwd === undefined) throw new AdapterConfigError(`${tool}: ${kind} needs roots: the folders its command runs in`);
  const command = resolveCommand(hook.command, deps.dir);
  const layers: UnshareLayer[] = deps.sandbox.available ? [deps.sandbox] : [];
  if (deps.pidNamespace.available) layers.push(deps.pidNamespace);
  const env = buildChildEnv(hook.env, deps.hostEnv);
  const line = confineToolProcess(deps.confinement, {
    command,
    args: hook.argv,
    cwd,
    network: "none",
    writable: roots ?? [],
    readable: startupPaths([command, ...hook.argv], deps.dir),
    trusted: hook.trusted,
    layers,
  });
  // an operator's manifest that cannot run here is refused at start, as a missing root is
  if (!line.ok) throw new AdapterConfigError(`${tool}: its ${kind} command cannot run: ${line.error.message}`);

  return async (input, signal, redactor) => {
    const r = await runProcess({ ...line.value, env, signal, maxStdoutBytes: MAX_STDOUT, maxStderrBytes: MAX_STDERR, stdin: Buffer.from(JSON.stringify(input)) });
    if (r.aborted) return `the ${kind} command was killed: it ran out of time`;
    if (r.exitCode === 0) return undefined;
    const first = redactor
      .text(r.stderr.toString("utf8"), r.stderrTruncated)
      .split("\n")
      .map((l) => l.trim())
      .find((l) => l !== "");
    const how = r.exitCode === null ? `was killed by ${r.signal ?? "a signal"}` : `exited with code ${r.exitCode}`;
    if (first === undefined) return `the ${kind} command ${how}`;
    return first.length <= MAX_REASON ? first : `${first.slice(0, MAX_REASON - 1)}…`;
  };
}
