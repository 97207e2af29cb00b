import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { eventually } from "@warden/testing";
import { expect } from "vitest";

const CLI = join(import.meta.dirname, "../../cli/dist/main.js");

export interface RunningMcpHttp {
  readonly child: ChildProcess;
  /** `http://127.0.0.1:PORT/mcp`, as it printed. */
  readonly url: string;
  /** The bearer token it printed (made for this run when WARDEN_MCP_TOKEN is not set). */
  readonly token: string;
  /** Everything it wrote to stderr so far (its logs at LOG_LEVEL). */
  output(): string;
  stop(): void;
}

/**
 * Starts `warden mcp ARGS --http --port 0` as a person would (the built CLI, the home's
 * credentials, no WARDEN_MCP_TOKEN unless `env` sets one) and reads the address and token it prints.
 */
export async function startMcpHttp(home: string, args: readonly string[], env: Record<string, string> = {}): Promise<RunningMcpHttp> {
  const { NATS_URL: _url, NATS_CREDS: _creds, WARDEN_MCP_TOKEN: _token, WARDEN_PRINCIPAL: _p, ...rest } = process.env;
  const child = spawn(process.execPath, [CLI, "mcp", ...args, "--http", "--port", "0"], {
    env: { ...rest, WARDEN_HOME: home, LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let err = "";
  child.stderr!.on("data", (b: Buffer) => (err += b.toString()));
  const { url, token } = await eventually(() => {
    expect(child.exitCode, err).toBeNull();
    const url = /at (http:\/\/\S+\/mcp)/.exec(err)?.[1];
    const token = env["WARDEN_MCP_TOKEN"] ?? /Authorization: Bearer (\S+)/.exec(err)?.[1];
    expect(url, err).toBeDefined();
    expect(token, err).toBeDefined();
    return { url: url!, token: token! };
  }, 45_000);
  return { child, url, token, output: () => err, stop: () => void child.kill("SIGTERM") };
}
