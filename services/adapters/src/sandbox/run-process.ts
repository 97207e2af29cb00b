import { spawn } from "node:child_process";
import { descendantsOf } from "./descendants.js";
import { writeFd3 } from "./try-run.js";

export interface ProcessSpec {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  /** The child's whole environment. */
  readonly env: Readonly<Record<string, string>>;
  readonly signal: AbortSignal;
  readonly maxStdoutBytes: number;
  readonly maxStderrBytes: number;
  /** Run as this user and group (root drops to them; the tools' sandbox sets them). */
  readonly uid?: number;
  readonly gid?: number;
  /** Written to the child's fd 3 and closed (the tools' sandbox passes bwrap's arguments there). */
  readonly fd3?: Buffer;
  /** Written to the child's stdin, which is then closed; without it the child reads end-of-file at once. */
  readonly stdin?: Buffer;
}

export interface ProcessResult {
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: Buffer;
  readonly stderr: Buffer;
  readonly stdoutTruncated: boolean;
  readonly stderrTruncated: boolean;
  /** True when the signal aborted the run and the process group was killed. */
  readonly aborted: boolean;
  readonly pid: number | undefined;
}

/** How long a finished command's output pipes may stay open (held by a leftover child) before we stop reading. */
const PIPE_DRAIN_MS = 1_000;

/** Rounds of the descendant sweep on abort: a process may fork between one scan and its kill. */
const SWEEPS = 3;

/**
 * Runs a command with an argv array (never a shell) in its own process group. On abort, and once
 * the command exits, the whole group is killed; on abort every descendant still linked to the
 * command (its own session or group included) is killed first. A descendant that was orphaned
 * before that escapes both: run the command in a PID namespace (`confineCommand`) to catch it.
 * Output beyond the caps is read and dropped (the child never blocks on a full pipe).
 */
export function runProcess(spec: ProcessSpec): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    if (spec.signal.aborted) {
      reject(new Error("the call was aborted before the command started"));
      return;
    }
    const child = spawn(spec.command, [...spec.args], {
      cwd: spec.cwd,
      env: spec.env,
      detached: true,
      ...(spec.uid === undefined ? {} : { uid: spec.uid, gid: spec.gid ?? spec.uid }),
      stdio: spec.fd3 === undefined ? ["pipe", "pipe", "pipe"] : ["pipe", "pipe", "pipe", "pipe"],
      shell: false,
    });
    if (spec.fd3 !== undefined) writeFd3(child, spec.fd3);
    // a child that exits without reading all of it closes the pipe: EPIPE is its answer, not ours to fail on
    child.stdin.on("error", () => undefined);
    // closed at once without input: the child reads end-of-file, as from /dev/null
    child.stdin.end(spec.stdin);
    const out = capped(spec.maxStdoutBytes);
    const err = capped(spec.maxStderrBytes);
    child.stdout.on("data", out.push);
    child.stderr.on("data", err.push);
    let aborted = false;
    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // the group is already gone
      }
    };
    const killTree = () => {
      if (child.pid === undefined) return;
      for (let round = 0; round < SWEEPS; round++) {
        const found = descendantsOf(child.pid);
        if (found.length === 0) break;
        for (const pid of found) kill(pid);
      }
    };
    const onAbort = () => {
      aborted = true;
      killTree();
      killGroup();
    };
    spec.signal.addEventListener("abort", onAbort, { once: true });
    child.once("error", (e) => {
      spec.signal.removeEventListener("abort", onAbort);
      reject(e);
    });
    child.once("exit", (exitCode, signal) => {
      spec.signal.removeEventListener("abort", onAbort);
      // children left behind in the group would hold the pipes open and outlive the call
      killGroup();
      const finish = () =>
        resolve({
          exitCode,
          signal,
          stdout: out.bytes(),
          stderr: err.bytes(),
          stdoutTruncated: out.truncated(),
          stderrTruncated: err.truncated(),
          aborted,
          pid: child.pid,
        });
      const drained = Promise.all([closed(child.stdout), closed(child.stderr)]);
      const timer = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
      }, PIPE_DRAIN_MS);
      void drained.then(() => {
        clearTimeout(timer);
        finish();
      });
    });
  });
}

function kill(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // already gone
  }
}

function closed(stream: NodeJS.ReadableStream & { readonly closed?: boolean }): Promise<void> {
  if (stream.closed) return Promise.resolve();
  return new Promise((r) => stream.once("close", () => r()));
}

function capped(max: number) {
  const chunks: Buffer[] = [];
  let kept = 0;
  let over = false;
  return {
    push: (chunk: Buffer) => {
      if (kept >= max) {
        over = true;
        return;
      }
      const room = max - kept;
      if (chunk.length > room) over = true;
      const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
      chunks.push(part);
      kept += part.length;
    },
    bytes: () => Buffer.concat(chunks),
    truncated: () => over,
  };
}
