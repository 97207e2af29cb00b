import { realpathSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { ToolDescriptorSchema } from "@warden/contracts/descriptor";
import { type JsonValue } from "@warden/contracts/json";
import { Redactor, type ExecutableTool, type PreparedCall, type ToolContext, type ToolEffects } from "@warden/executor";
import { adapterTool, type Args, type PreparedPreview } from "../adapter-tool.js";
import { AdapterConfigError, callRedactor, redactedError, secretValues, tail, toolFailure } from "../adapter-errors.js";
import { buildArgv } from "../domain/argv.js";
import { buildChildEnv } from "../domain/child-env.js";
import { parseOutput } from "../domain/output-parsers.js";
import { pathArgsOf } from "../domain/path-args.js";
import { isInside, resolveCommand, resolveRoot } from "../domain/paths.js";
import { fillTemplate, parseTemplate, type TemplatePart } from "../domain/template.js";
import type { CliSection, SecretSource, ToolEntry } from "../manifest/manifest-schema.js";
import { toolDescriptor } from "../manifest/tool-descriptor.js";
import { manifestHooks } from "../hooks/manifest-hooks.js";
import { confineToolProcess, type ToolConfinement } from "../sandbox/confine-tool-process.js";
import { startupPaths } from "../sandbox/tool-sandbox.js";
import type { NetworkSandbox } from "../sandbox/network-sandbox.js";
import type { PidNamespace } from "../sandbox/pid-namespace.js";
import { runProcess } from "../sandbox/run-process.js";
import type { UnshareLayer } from "../sandbox/unshare.js";
import { confinedPaths, confinePathArgs } from "./confine-paths.js";

export interface CliToolDeps {
  readonly hostEnv: Readonly<Record<string, string | undefined>>;
  /** The manifest's secrets (values are read through `ctx.secrets`, from the executor's store). */
  readonly secretSources: readonly SecretSource[];
  readonly sandbox: NetworkSandbox;
  /** Where available, each command runs as PID 1 of its own namespace: all it starts dies with it. */
  readonly pidNamespace: PidNamespace;
  /** The manifest's folder: relative roots and commands are resolved against it. */
  readonly dir: string;
  /** The tools' sandbox (every command runs in it unless its manifest marks it trusted) and what it hides. */
  readonly confinement: ToolConfinement;
}

const ERROR_TEXT = 2_000;

/**
 * A manifest tool that runs a command: argv from args, no shell, confined cwd and path args,
 * allow-listed env, no network by default, in a PID namespace of its own where the machine allows.
 */
export function cliTool(domain: string, entry: ToolEntry & { cli: CliSection }, deps: CliToolDeps): ExecutableTool {
  const cli = entry.cli;
  const descriptor = ToolDescriptorSchema.parse(toolDescriptor(domain, entry, deps.secretSources));
  if (cli.trusted && cli.network === "none" && !deps.sandbox.available) {
    throw new AdapterConfigError(
      `${descriptor.name} declares network: none, but this machine cannot start a process without network (${deps.sandbox.reason}); run the executor as root or where user namespaces are allowed, or declare network: host`,
    );
  }
  const roots = cli.roots.map((r) => {
    const real = resolveRoot(r, deps.dir);
    if (real === undefined) throw new AdapterConfigError(`${descriptor.name}: root ${r} does not exist (relative to ${deps.dir})`);
    return real;
  });
  const command = resolveCommand(cli.command, deps.dir);
  const cwdParsed = cli.cwd === undefined ? undefined : parseTemplate(cli.cwd);
  if (cwdParsed !== undefined && !cwdParsed.ok) throw new AdapterConfigError(`${descriptor.name}: cli.cwd: ${cwdParsed.error.message}`);
  const cwdTemplate = cwdParsed?.ok ? cwdParsed.value : undefined;
  const uses = entry.secrets;
  const pathArgs = pathArgsOf(descriptor.inputSchema);
  const layers: UnshareLayer[] = [];
  if (cli.network === "none" && deps.sandbox.available) layers.push(deps.sandbox);
  if (deps.pidNamespace.available) layers.push(deps.pidNamespace);

  /** The argv, working directory and confined paths of a run of `argvTemplate` with these args. */
  const plan = (argvTemplate: CliSection["argv"], args: Args): { ok: true; argv: string[]; cwd: string; paths: readonly string[] } | { ok: false; message: string } => {
    const cwd = workingDirectory(cwdTemplate, args, roots);
    if (!cwd.ok) return { ok: false, message: cwd.message };
    const confined = confinePathArgs(args, pathArgs, cwd.path, roots);
    if (!confined.ok) return { ok: false, message: confined.error.message };
    const argv = buildArgv(argvTemplate, confined.value);
    if (!argv.ok) return { ok: false, message: argv.error.message };
    return { ok: true, argv: argv.value, cwd: cwd.path, paths: confinedPaths(confined.value, pathArgs) };
  };

  const prepare = (args: Args): PreparedCall => {
    const p = plan(cli.argv, args);
    if (!p.ok) return p;
    return { ok: true, run: (ctx) => run(command, p.argv, p.cwd, ctx, p.paths) };
  };

  // the dry run is the same sandbox, roots, env and secrets with its own argv (and command): its stdout is the preview
  const dryRun = entry.preview;
  const previewCommand = dryRun?.command === undefined ? command : resolveCommand(dryRun.command, deps.dir);
  const preview =
    dryRun === undefined
      ? undefined
      : (args: Args): PreparedPreview => {
          const p = plan(dryRun.argv ?? [], args);
          if (!p.ok) return p;
          return { ok: true, run: async (ctx) => (await run(previewCommand, p.argv, p.cwd, ctx, []))["stdout"] ?? null };
        };

  // what the sandbox shows of the command, its dry run's and their scripts: fixed by the manifest, found once
  const readable = startupPaths([command, previewCommand, ...literalArgv(cli.argv), ...literalArgv(dryRun?.argv ?? [])], deps.dir);

  const run = async (program: string, argv: string[], cwd: string, ctx: Pick<ToolContext, "signal" | "log" | "secrets"> & { readonly effects?: ToolEffects }, paths: readonly string[]): Promise<Record<string, JsonValue>> => {
    // the command's own reads and writes are unseen; the paths it was given are known. A read tool
    // only reads them; for a write or send the adapter cannot tell which it only read: all count as written
    for (const p of paths) {
      if (descriptor.grade === "read") ctx.effects?.read(p);
      else ctx.effects?.wrote(p);
    }
    const secrets = await secretValues(uses, ctx);
    const redactor = new Redactor(secrets);
    try {
      const injected: Record<string, string> = {};
      for (const u of uses) if (u.env !== undefined) injected[u.env] = `${u.prefix}${secrets.get(u.secret)!}`;
      const env = buildChildEnv(cli.env, deps.hostEnv, injected);
      const line = confineToolProcess(deps.confinement, {
        command: program,
        args: argv,
        cwd,
        network: cli.network,
        writable: roots,
        readable,
        trusted: cli.trusted,
        layers,
      });
      if (!line.ok) throw toolFailure(redactor, line.error.code, line.error.message, false);
      ctx.log.debug({ command: program, argc: argv.length, cwd, network: cli.network, sandbox: cli.trusted ? "trusted" : "bubblewrap" }, "running command");
      const r = await runProcess({ ...line.value, env, signal: ctx.signal, maxStdoutBytes: cli.maxStdoutBytes, maxStderrBytes: cli.maxStderrBytes });
      if (r.aborted) throw toolFailure(redactor, "TIMEOUT", deps.pidNamespace.available ? "the command was killed with everything it started: the call timed out" : "the command was killed with its process group and descendants: the call timed out", true);
      const stdout = redactor.text(r.stdout.toString("utf8"), r.stdoutTruncated);
      const stderr = redactor.text(r.stderr.toString("utf8"), r.stderrTruncated);
      if (r.exitCode === null || !cli.okExitCodes.includes(r.exitCode)) {
        const how = r.exitCode === null ? `was killed by ${r.signal ?? "a signal"}` : `exited with code ${r.exitCode}`;
        const last = stderr.trim().split("\n").at(-1) ?? "";
        throw toolFailure(redactor, "HANDLER_ERROR", `the command ${how}${last ? `: ${tail(last, 300)}` : ""}`, false, {
          exitCode: r.exitCode,
          signal: r.signal,
          stderr: tail(stderr, ERROR_TEXT),
        });
      }
      if (r.stdoutTruncated && cli.output !== "text") {
        throw toolFailure(redactor, "OUTPUT_TOO_LARGE", `stdout passed the tool's cap of ${cli.maxStdoutBytes} bytes, so it cannot be parsed as ${cli.output}`, false);
      }
      const parsed = parseOutput(stdout, cli.output);
      if (!parsed.ok) throw toolFailure(redactor, parsed.error.code, parsed.error.message, false);
      const out: Record<string, JsonValue> = { exitCode: r.exitCode, stdout: redactor.value(parsed.value), stderr, network: cli.network };
      if (r.stdoutTruncated) out["stdoutTruncated"] = true;
      if (r.stderrTruncated) out["stderrTruncated"] = true;
      return out;
    } catch (err) {
      throw redactedError(redactor, err);
    }
  };

  const redactor = (ctx: ToolContext) => callRedactor(uses, ctx);
  const hooks = manifestHooks(descriptor.name, entry, roots, deps, redactor);
  return adapterTool(descriptor, prepare, { hooks, ...(preview === undefined ? {} : { preview }) });
}

/** The call's working directory: the template filled (default: the first root), resolved, and inside a root. */
function workingDirectory(
  template: readonly TemplatePart[] | undefined,
  args: Args,
  roots: readonly string[],
): { ok: true; path: string } | { ok: false; message: string } {
  let wanted = roots[0]!;
  if (template !== undefined) {
    const filled = fillTemplate(template, args);
    if (!filled.ok) return { ok: false, message: filled.error.message };
    if (filled.value.kind === "text") wanted = resolve(roots[0]!, filled.value.text);
  }
  let real: string;
  try {
    // symlinks resolved first: a link inside a root must not lead out of it
    real = realpathSync(wanted);
  } catch {
    return { ok: false, message: `working directory ${wanted} does not exist` };
  }
  if (!roots.some((root) => isInside(root, real))) {
    return { ok: false, message: `working directory ${real} is outside the tool's roots (${roots.join(", ")}); refused before running` };
  }
  if (!statSync(real).isDirectory()) return { ok: false, message: `working directory ${real} is not a directory` };
  return { ok: true, path: real };
}

/** The manifest's own argv strings (never what a call fills in): a script it names must be readable in the sandbox. */
function literalArgv(argv: CliSection["argv"]): string[] {
  return argv.flatMap((a) => (typeof a === "string" ? [a] : "argv" in a ? a.argv : [])).filter((a) => !a.includes("{"));
}
