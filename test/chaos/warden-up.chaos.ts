import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "@nats-io/transport-node";
import { describe, expect, it } from "vitest";
import { natsServersIn } from "@warden/local-nats";
import { runWarden } from "../support/cli.js";
import { appendRow } from "./support/report.js";

const CLI = join(import.meta.dirname, "../../cli/dist/main.js");
/** Where `warden up` is killed (ms after it started): writing keys, starting the server, provisioning, starting services. */
const KILL_AFTER_MS = [200, 700, 1_500, 3_000, 6_000];

function startUp(home: string, log: string[]): ChildProcess {
  const { NATS_URL: _url, NATS_CREDS: _creds, ...env } = process.env;
  const child = spawn(process.execPath, [CLI, "up", "--demo", "--nats-port", "0"], {
    env: { ...env, WARDEN_HOME: home, WARDEN_NOTARY_HOME: `${home}.notary`, LOG_LEVEL: "warn" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout!.on("data", (b: Buffer) => log.push(b.toString()));
  child.stderr!.on("data", (b: Buffer) => log.push(b.toString()));
  return child;
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r() : child.once("exit", () => r())));
}

/** The nats-servers running in this home's nats folder. */
const homeServers = (home: string): number[] => natsServersIn(join(home, "nats"));

/** The result `warden call --json` printed, when it printed one. */
function parseResult(out: string): { callId?: string; ok?: boolean } | undefined {
  try {
    return JSON.parse(out) as { callId?: string; ok?: boolean };
  } catch {
    return undefined;
  }
}

async function waitForUp(log: string[], timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (log.join("").includes("Warden is up.")) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

/** Whether a client without credentials is refused (operator-mode auth holds). */
async function refusesAnonymous(url: string): Promise<boolean> {
  try {
    const nc = await connect({ servers: url, timeout: 3_000, reconnect: false });
    await nc.close();
    return false;
  } catch {
    return true;
  }
}

/**
 * `warden up` killed with -9 at points through its start (keys, server, provisioning, services):
 * the next `warden up` on the same home must come up secured, with one nats-server on the store
 * (a killed up leaves its server running: two on one store would corrupt it), and calls must work.
 */
describe("chaos (long): warden up killed half-way", () => {
  it(`the next warden up repairs: one secured server, calls work (killed after ${KILL_AFTER_MS.join(", ")} ms)`, async () => {
    const dir = mkdtempSync(join(tmpdir(), "warden-up-chaos-"));
    const home = join(dir, "home");
    const notes: string[] = [];
    // one call after each repaired up: whether the server acknowledged it, whether it ended, and
    // how long from the kill until it had (the operator's outage)
    const callIds: string[] = [];
    let ended = 0;
    const recoveryMs: (number | null)[] = [];
    try {
      for (const at of KILL_AFTER_MS) {
        const first = startUp(home, []);
        await new Promise((r) => setTimeout(r, at));
        first.kill("SIGKILL");
        const killedAt = Date.now();
        await exited(first);
        const left = homeServers(home).length;
        const log: string[] = [];
        const second = startUp(home, log);
        try {
          const up = await waitForUp(log, 120_000);
          expect(up, `warden up after a kill at ${at} ms:\n${log.join("").slice(-2_000)}`).toBe(true);
          const servers = homeServers(home);
          const url = (JSON.parse(readFileSync(join(home, "env.json"), "utf8")) as { url: string }).url;
          const anonymousRefused = await refusesAnonymous(url);
          const call = await runWarden(home, "call", "kb.search", "--args", '{"query":"refund"}', "--mode", "llm", "--principal", "support-bot", "--json");
          const result = parseResult(call.out);
          if (result?.callId !== undefined) callIds.push(result.callId);
          if (result?.ok !== undefined) ended++;
          recoveryMs.push(result?.ok === true ? Date.now() - killedAt : null);
          notes.push(`killed at ${at} ms: ${left} server(s) left running; next up: ${servers.length} server(s), anonymous ${anonymousRefused ? "refused" : "ADMITTED"}, call exit ${call.code}`);
          expect.soft(servers, `nats-servers on the home's store after a kill at ${at} ms`).toHaveLength(1);
          expect.soft(anonymousRefused, "a client without credentials is refused").toBe(true);
          expect.soft(call.code, `${call.out}${call.err}`).toBe(0);
        } finally {
          second.kill("SIGTERM");
          await exited(second);
        }
      }
      expect(homeServers(home), "a warden up stopped with SIGTERM stops its server").toEqual([]);
    } finally {
      for (const pid of homeServers(home)) process.kill(pid, "SIGKILL");
      appendRow(process.env["CHAOS_REPORT_FILE"], {
        scenario: "warden up killed half-way",
        calls: recoveryMs.length,
        acked: callIds.length,
        lost: callIds.length - ended,
        unrecordedEffects: 0,
        terminal: ended,
        stuck: recoveryMs.length - ended,
        duplicates: 0,
        doubleEffects: 0,
        outcomeUnknown: 0,
        lostResults: 0,
        crashes: 0,
        faults: KILL_AFTER_MS.length,
        recoveryMs,
        notes: `${notes.join("; ")} (a read per repaired up, no run-once effect; recovery: kill to that call's ok result, the next up's start included)`,
      });
      rmSync(dir, { recursive: true, force: true });
      rmSync(`${home}.notary`, { recursive: true, force: true });
    }
  });
});
