import { spawn, type ChildProcess } from "node:child_process";

/** What a probe runs: a command, and for the tools' sandbox its uid and bwrap's options on fd 3. */
export interface ProbeRun {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd?: string;
  readonly uid?: number;
  readonly gid?: number;
  readonly fd3?: Buffer;
}

/** Runs a probe with an empty environment: undefined when it exits 0, else the first line of its stderr. */
export function tryRun(p: ProbeRun): Promise<string | undefined> {
  return new Promise((resolve) => {
    const child = spawn(p.command, [...p.args], {
      ...(p.cwd === undefined ? {} : { cwd: p.cwd }),
      stdio: p.fd3 === undefined ? ["ignore", "ignore", "pipe"] : ["ignore", "ignore", "pipe", "pipe"],
      env: {},
      ...(p.uid === undefined ? {} : { uid: p.uid, gid: p.gid ?? p.uid }),
    });
    if (p.fd3 !== undefined) writeFd3(child, p.fd3);
    let stderr = "";
    child.stderr?.on("data", (c: Buffer) => void (stderr += c.toString("utf8")));
    child.on("error", (err) => resolve(err.message));
    child.on("close", (code) => resolve(code === 0 ? undefined : (stderr.trim().split("\n")[0] ?? `exit code ${code}`)));
  });
}

/** Writes bwrap's options to a child's fd 3 (spawned with a 4th stdio pipe) and closes it. */
export function writeFd3(child: ChildProcess, fd3: Buffer): void {
  const pipe = child.stdio[3] as NodeJS.WritableStream | null | undefined;
  if (pipe === null || pipe === undefined) return;
  // a child gone before reading closes the pipe: its exit says what happened
  (pipe as NodeJS.WritableStream & { on(e: "error", f: () => void): void }).on("error", () => undefined);
  pipe.end(fd3);
}
