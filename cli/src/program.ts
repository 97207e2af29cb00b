import { Command as Commander, Option } from "commander";
import type { OptionSpecs } from "./args.js";
import { COMMANDS, HELP_FOOTER, type CommandSpec } from "./command-list.js";
import type { CommandIo } from "./io.js";

/**
 * The commander program made from COMMANDS. commander writes through `io` and throws instead of
 * exiting (runCli turns that into an exit code); an action hands its exit code to `done`.
 */
export function buildProgram(io: CommandIo, done: (exitCode: number) => void): Commander {
  const program = new Commander("warden")
    .description("governs what AI agents do (tool calls over NATS JetStream)")
    .usage("<command> [options]")
    // a parent's options end at its subcommand, so `tools enable X --json` reaches `enable`
    .enablePositionalOptions()
    .exitOverride()
    .configureOutput({
      // io adds the newline
      writeOut: (text) => io.out(text.replace(/\n$/, "")),
      writeErr: (text) => io.err(text.replace(/\n$/, "")),
      // runCli prints errors, as one line or one JSON document
      outputError: () => undefined,
    })
    .addHelpText("after", HELP_FOOTER);
  for (const spec of COMMANDS) addCommand(program, spec, io, done);
  return program;
}

function addCommand(parent: Commander, spec: CommandSpec, io: CommandIo, done: (exitCode: number) => void): void {
  // `command()` (unlike `new Command()`) inherits the output, exit and positional-options settings
  const cmd = parent.command(spec.name).summary(spec.summary).description(spec.summary);
  for (const arg of spec.arguments ?? []) cmd.argument(`<${arg.name}>`, arg.description);
  const options = new Map<string, Option>();
  for (const [name, o] of Object.entries(spec.options ?? {})) {
    const option = new Option(o.type === "string" ? `--${name} <${o.value ?? "VALUE"}>` : `--${name}`, o.description);
    if (o.required === true) option.makeOptionMandatory();
    options.set(name, option);
    cmd.addOption(option);
  }
  if (spec.extraArguments === true) cmd.allowExcessArguments();
  for (const sub of spec.subcommands ?? []) addCommand(cmd, sub, io, done);
  const run = spec.run;
  if (run !== undefined) {
    cmd.action(async () => {
      done(await run({ values: valuesOf(cmd, options), positionals: cmd.args }, io));
    });
  }
}

/** commander keys values by camelCase; commands read them by the long names they declared. */
function valuesOf(cmd: Commander, options: ReadonlyMap<string, Option>): Record<string, string | boolean> {
  const values: Record<string, string | boolean> = {};
  for (const [name, option] of options) {
    const v: unknown = cmd.getOptionValue(option.attributeName());
    if (typeof v === "string" || typeof v === "boolean") values[name] = v;
  }
  return values;
}

/** The command words argv names (`tools enable`), for pointing at the right `--help`. */
export function commandPath(argv: readonly string[]): string[] {
  const path: string[] = [];
  let specs: readonly CommandSpec[] = COMMANDS;
  for (const word of argv) {
    if (word.startsWith("-")) continue;
    const spec = specs.find((s) => s.name === word);
    if (spec === undefined) break;
    path.push(word);
    specs = spec.subcommands ?? [];
  }
  return path;
}

/** Every command that runs something, with its words and options: what the help tests walk. */
export function leafCommands(specs: readonly CommandSpec[] = COMMANDS, prefix: readonly string[] = []): { path: string[]; options: OptionSpecs }[] {
  return specs.flatMap((s) => [
    ...(s.run === undefined ? [] : [{ path: [...prefix, s.name], options: s.options ?? {} }]),
    ...leafCommands(s.subcommands ?? [], [...prefix, s.name]),
  ]);
}
