import { existsSync, readFileSync, readlinkSync, realpathSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import type { CommandIo } from "../io.js";

/**
 * A `warden up` killed with -9 leaves its nats-server running on the home's store: started again,
 * it would start a second server on the same files. The server's pid file (nats.conf's `pid_file`)
 * names it; if that process is still a nats-server running in this home's folder, it is stopped
 * first. A pid the kernel has since given to another process is left alone.
 */
export async function stopLeftoverServer(pidFile: string, io: CommandIo): Promise<void> {
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, "utf8").trim());
  if (Number.isInteger(pid) && pid > 1 && isHomeServer(pid, dirname(pidFile))) {
    io.err(`warden: a nats-server of this home is still running (pid ${pid}, left by a warden up that did not stop cleanly); stopping it first`);
    await stop(pid);
  }
  rmSync(pidFile, { force: true });
}

function isHomeServer(pid: number, natsDir: string): boolean {
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
    return cmdline.includes("nats-server") && readlinkSync(`/proc/${pid}/cwd`) === realpathSync(natsDir);
  } catch {
    // gone, or not ours to look at
    return false;
  }
}

async function stop(pid: number): Promise<void> {
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  process.kill(pid, "SIGTERM");
  for (let waited = 0; waited < 10_000 && alive(); waited += 100) await new Promise((r) => setTimeout(r, 100));
  if (alive()) process.kill(pid, "SIGKILL");
  for (let waited = 0; waited < 5_000 && alive(); waited += 100) await new Promise((r) => setTimeout(r, 100));
}
