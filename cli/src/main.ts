#!/usr/bin/env node
import * as nodeModule from "node:module";

// V8 keeps compiled code on disk between runs; a short command spends most of its CPU compiling.
// Node before 22.1 has no compile cache: the command then just runs without it
(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();

// a reader that went away (`warden audit --jsonl | head -1`) ends the command, quietly
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code === "EPIPE") process.exit(typeof process.exitCode === "number" ? process.exitCode : 0);
    throw err;
  });
}

// imported after the cache is on, so that it covers them
const { runCli } = await import("./run-cli.js");

const stopSignal = () =>
  new Promise<string>((resolve) => {
    process.once("SIGINT", () => resolve("SIGINT"));
    process.once("SIGTERM", () => resolve("SIGTERM"));
  });

/** A question on stderr (stdout stays the command's output), answered on a terminal's stdin. */
const prompt = async (question: string): Promise<string> => {
  const { createInterface } = await import("node:readline/promises");
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return await rl.question(question);
  } finally {
    rl.close();
  }
};

process.exitCode = await runCli(process.argv.slice(2), {
  env: process.env,
  cwd: process.cwd(),
  out: (text) => void process.stdout.write(`${text}\n`),
  err: (text) => void process.stderr.write(`${text}\n`),
  stopSignal,
  ...(process.stdin.isTTY ? { prompt } : {}),
});
