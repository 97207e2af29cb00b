import { spawn, type ChildProcessByStdio } from "node:child_process";
import { writeFd3 } from "../sandbox/try-run.js";
import type { Readable, Writable } from "node:stream";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

export interface ProcessTransportOptions {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  /** The server's whole environment (the SDK's own stdio transport would add HOME, USER and more). */
  readonly env: Readonly<Record<string, string>>;
  /** Run as this user and group (the tools' sandbox sets them when root drops to a sandbox uid). */
  readonly uid?: number;
  readonly gid?: number;
  /** Written to the child's fd 3 and closed (the tools' sandbox passes bwrap's arguments there). */
  readonly fd3?: Buffer;
  /** Each line the server writes to stderr. */
  readonly onStderrLine?: (line: string) => void;
}

const CLOSE_GRACE_MS = 2_000;

/**
 * MCP over a child's stdio, with the server in its own process group and exactly the environment
 * given; closing it ends stdin, then kills the whole group if the server lingers.
 */
export class ProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child: ChildProcessByStdio<Writable, Readable, Readable> | undefined;
  private readonly buffer = new ReadBuffer();

  constructor(private readonly o: ProcessTransportOptions) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): Promise<void> {
    if (this.child) throw new Error("ProcessTransport already started");
    return new Promise((resolve, reject) => {
      const child = spawn(this.o.command, [...this.o.args], {
        cwd: this.o.cwd,
        env: this.o.env,
        detached: true,
        ...(this.o.uid === undefined ? {} : { uid: this.o.uid, gid: this.o.gid ?? this.o.uid }),
        stdio: this.o.fd3 === undefined ? ["pipe", "pipe", "pipe"] : ["pipe", "pipe", "pipe", "pipe"],
        shell: false,
      });
      if (this.o.fd3 !== undefined) writeFd3(child, this.o.fd3);
      this.child = child;
      child.once("error", (err) => {
        reject(err);
        this.onerror?.(err);
      });
      child.once("spawn", () => resolve());
      child.once("close", () => {
        this.child = undefined;
        this.onclose?.();
      });
      child.stdin.on("error", (err) => this.onerror?.(err));
      child.stdout.on("data", (chunk: Buffer) => {
        this.buffer.append(chunk);
        for (;;) {
          let message: JSONRPCMessage | null;
          try {
            message = this.buffer.readMessage();
          } catch (err) {
            this.onerror?.(err as Error);
            continue;
          }
          if (message === null) break;
          this.onmessage?.(message);
        }
      });
      let partial = "";
      child.stderr.on("data", (chunk: Buffer) => {
        const lines = (partial + chunk.toString("utf8")).split("\n");
        partial = lines.pop() ?? "";
        for (const line of lines) if (line.trim() !== "") this.o.onStderrLine?.(line);
      });
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const child = this.child;
    if (!child) return Promise.reject(new Error("the MCP server is not running"));
    return new Promise((resolve) => {
      if (child.stdin.write(serializeMessage(message))) resolve();
      else child.stdin.once("drain", resolve);
    });
  }

  async close(): Promise<void> {
    const child = this.child;
    if (!child) return;
    const closed = new Promise<void>((r) => child.once("close", () => r()));
    child.stdin.end();
    const gone = await Promise.race([closed.then(() => true), delay(CLOSE_GRACE_MS).then(() => false)]);
    killGroup(child.pid, gone ? "SIGKILL" : "SIGTERM");
    if (!gone && !(await Promise.race([closed.then(() => true), delay(CLOSE_GRACE_MS).then(() => false)]))) killGroup(child.pid, "SIGKILL");
    this.buffer.clear();
  }
}

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms).unref());
}
