import { CommanderError } from "commander";
import { CliError, EXIT_FAILED, EXIT_OK, EXIT_UNREACHABLE } from "./errors.js";
import type { CommandIo } from "./io.js";
import { emitError } from "./output.js";
import { buildProgram, commandPath } from "./program.js";

/** commander's ways to end after printing help, as opposed to refusing the arguments. */
const HELP_CODES = new Set(["commander.helpDisplayed", "commander.help", "commander.version"]);

/** Runs one command and turns every expected failure into one line (or one JSON document) and an exit code. */
export async function runCli(argv: string[], io: CommandIo): Promise<number> {
  const json = argv.includes("--json");
  let exitCode = EXIT_OK;
  try {
    await buildProgram(io, (code) => (exitCode = code)).parseAsync(argv, { from: "user" });
    return exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (HELP_CODES.has(err.code)) return err.exitCode;
      emitError(io, json, "INVALID_REQUEST", usageMessage(err, argv));
      return EXIT_FAILED;
    }
    if (err instanceof CliError) {
      emitError(io, json, err.code, err.message);
      return err.exitCode;
    }
    const message = (err as Error).message ?? String(err);
    // loaded only on this path: `warden help` must not pay for the NATS client
    const { isNoAnswer, isPermissionViolation } = await import("@warden/bus");
    if (isPermissionViolation(err)) {
      emitError(io, json, "FORBIDDEN", `refused by the server: this identity may not do that (${message})`);
      return EXIT_FAILED;
    }
    if (isNoAnswer(err)) {
      // NATS is reachable but nothing behind it answered: JetStream or the service asked is not running
      emitError(io, json, "UNAVAILABLE", `nothing answered (${message}): is Warden running? \`warden up\` (or \`npm start\`) starts it; on a cluster, JetStream may be electing a leader, so try again`);
      return EXIT_UNREACHABLE;
    }
    emitError(io, json, "INTERNAL", `internal error: ${message}`);
    return EXIT_FAILED;
  }
}

/** commander's message on one line, with where to look: `error: unknown option '--jsn'\n(Did you mean --json?)`. */
function usageMessage(err: CommanderError, argv: readonly string[]): string {
  const message = err.message.replace(/^error: /, "").replace(/\s*\n\s*/g, " ").replace(/\.$/, "");
  const path = commandPath(argv);
  return `${message}; see \`warden ${path.length === 0 ? "help" : `${path.join(" ")} --help`}\``;
}
