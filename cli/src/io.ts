import type { CommandInput, OptionSpecs } from "./args.js";

/** Where a command writes and what it reads from its environment; tests can hand in their own. */
export interface CommandIo {
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  out(text: string): void;
  err(text: string): void;
  /** Resolves when the process is asked to stop (SIGINT / SIGTERM); used by long-running commands. */
  stopSignal(): Promise<string>;
  /**
   * Asks a person a question and resolves with their answer; present only when someone can answer
   * (stdin is a terminal). A command that needs a confirmation refuses without it unless told
   * `--yes`.
   */
  readonly prompt?: (question: string) => Promise<string>;
}

/** A command gets its parsed options and positional arguments and returns the exit code. */
export type Command<O extends OptionSpecs> = (input: CommandInput<O>, io: CommandIo) => Promise<number>;
