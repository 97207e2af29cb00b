import { open, readFile } from "node:fs/promises";
import { CliError } from "./errors.js";

// Files the operator names on the command line (--tools, --keys, --out, …): every command reads
// and writes them with the same refusals, naming the file and why.

/** A named file's bytes; a file that cannot be read is NOT_FOUND. */
export async function readNamedFile(file: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (err) {
    throw new CliError("NOT_FOUND", `cannot read ${file}: ${(err as Error).message}`);
  }
}

/** A named file's text (UTF-8); a file that cannot be read is NOT_FOUND. */
export async function readNamedText(file: string): Promise<string> {
  return (await readNamedFile(file)).toString("utf8");
}

/** Writes `data` to a named file, created with `mode` (0o600 for anyone's data); a file that cannot be opened is refused. */
export async function writeNamedFile(file: string, data: string | Uint8Array, mode: number): Promise<void> {
  const handle = await open(file, "w", mode).catch((err: unknown) => {
    throw new CliError("INVALID_REQUEST", `cannot write ${file}: ${(err as Error).message}`);
  });
  try {
    await handle.writeFile(data);
  } finally {
    await handle.close();
  }
}
