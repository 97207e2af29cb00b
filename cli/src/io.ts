/** Where a command writes and what it reads from its environment; tests can hand in their own. */
export interface CommandIo {
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  out(text: string): void;
  err(text: string): void;
  /** Resolves when the process is asked to stop (SIGINT / SIGTERM); used by long-running commands. */
  stopSignal(): Promise<string>;
}

/** A command gets its own arguments (after the command words) and returns the exit code. */
export type Command = (argv: string[], io: CommandIo) => Promise<number>;
