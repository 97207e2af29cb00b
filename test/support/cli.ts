import { execFile } from "node:child_process";
import { join } from "node:path";

const CLI = join(import.meta.dirname, "../../cli/dist/main.js");

export interface CliRan {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

/** Runs the built warden CLI as an operator or auditor would, against the home `home` (never the caller's NATS_URL / NATS_CREDS). */
export function runWarden(home: string, ...args: string[]): Promise<CliRan> {
  const { NATS_URL: _url, NATS_CREDS: _creds, ...env } = process.env;
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...env, WARDEN_HOME: home, LOG_LEVEL: "silent" }, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === "number" ? err.code : 1;
      resolve({ code, out: stdout, err: stderr });
    });
  });
}
