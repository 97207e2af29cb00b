import { approvalsCommand } from "./commands/approvals.js";
import { auditCommand } from "./commands/audit.js";
import { callCommand } from "./commands/call.js";
import { approveCommand, denyCommand } from "./commands/decide.js";
import { helpCommand, USAGE } from "./commands/help.js";
import { policyCommand } from "./commands/policy.js";
import { principalCommand } from "./commands/principal.js";
import { provisionCommand } from "./commands/provision.js";
import { replayCommand } from "./commands/replay.js";
import { registerCommand } from "./commands/register.js";
import { toolsCommand } from "./commands/tools.js";
import { topologyCommand } from "./commands/topology.js";
import { traceCommand } from "./commands/trace.js";
import { upCommand } from "./commands/up.js";
import { CliError, EXIT_FAILED } from "./errors.js";
import type { Command, CommandIo } from "./io.js";
import { emitError } from "./output.js";

const COMMANDS: Record<string, Command> = {
  up: upCommand,
  tools: toolsCommand,
  call: callCommand,
  approvals: approvalsCommand,
  approve: approveCommand,
  deny: denyCommand,
  trace: traceCommand,
  audit: auditCommand,
  replay: replayCommand,
  policy: policyCommand,
  principal: principalCommand,
  provision: provisionCommand,
  topology: topologyCommand,
  register: registerCommand,
  help: helpCommand,
  "--help": helpCommand,
  "-h": helpCommand,
};

/** Runs one command and turns every expected failure into one line (or one JSON document) and an exit code. */
export async function runCli(argv: string[], io: CommandIo): Promise<number> {
  const [name, ...rest] = argv;
  const json = argv.includes("--json");
  const command = name === undefined ? undefined : COMMANDS[name];
  if (command === undefined) {
    if (name === undefined) io.err(USAGE);
    else emitError(io, json, "INVALID_REQUEST", `unknown command ${JSON.stringify(name)}; try \`warden help\``);
    return EXIT_FAILED;
  }
  try {
    return await command(rest, io);
  } catch (err) {
    if (err instanceof CliError) {
      emitError(io, json, err.code, err.message);
      return err.exitCode;
    }
    const message = (err as Error).message ?? String(err);
    if (/permissions? violation/i.test(message)) {
      emitError(io, json, "FORBIDDEN", `refused by the server: this identity may not do that (${message})`);
      return EXIT_FAILED;
    }
    emitError(io, json, "INTERNAL", `internal error: ${message}`);
    return EXIT_FAILED;
  }
}
