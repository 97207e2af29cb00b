import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { eventually } from "@warden/testing";
import { expect } from "vitest";

const CLI = join(import.meta.dirname, "../../cli/dist/main.js");

/** Debian's chromium: CI installs it (.ci/run); the browser tests never download a browser of their own. */
export const CHROMIUM = process.env["WARDEN_CHROMIUM"] ?? "/usr/bin/chromium";
export const NO_CHROMIUM = `no Chromium at ${CHROMIUM}: install Debian's (apt-get install -y chromium; .ci/run does) or set WARDEN_CHROMIUM`;

export interface RunningInbox {
  readonly child: ChildProcess;
  /** The URL it printed, with this run's token. */
  readonly url: string;
  output(): string;
}

/**
 * Starts `warden inbox --as person` as a person would (the built CLI, the home's credentials), and
 * reads the URL it prints; `args` replaces the command's arguments (the README's own, say).
 */
export async function startInbox(home: string, person: string, args: readonly string[] = ["inbox", "--as", person, "--refresh", "1s"]): Promise<RunningInbox> {
  const { NATS_URL: _url, NATS_CREDS: _creds, ...env } = process.env;
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...env, WARDEN_HOME: home, LOG_LEVEL: "warn" } });
  let out = "";
  child.stdout.on("data", (b: Buffer) => (out += b.toString()));
  child.stderr.on("data", (b: Buffer) => (out += b.toString()));
  const url = await eventually(() => {
    expect(child.exitCode, out).toBeNull();
    const m = /(http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]+)/.exec(out);
    expect(m, out).not.toBeNull();
    return m![1]!;
  }, 45_000);
  return { child, url, output: () => out };
}
