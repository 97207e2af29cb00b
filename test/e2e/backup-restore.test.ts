import { execFile, spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "@warden/testing";

/**
 * docs/operations.md "Backup, restore and upgrades", for `warden up`: the commands as the page
 * writes them (`npx warden` is the built CLI here), run in the folders they name. A backup taken
 * after one call, restored elsewhere after the original went on to a second, must verify against
 * the notary's checkpoints and its own head log, and must not pass the newer head log.
 */

const ROOT = join(import.meta.dirname, "../..");
const MAIN = join(ROOT, "cli/dist/main.js");
const DOC = readFileSync(join(ROOT, "docs/operations.md"), "utf8");

const BACKUP = "tar -czf warden-backup.tar.gz .warden .warden.notary";
const RESTORE = "tar -xzf warden-backup.tar.gz";
const VERIFY = "npx warden audit --verify";
const EXPORT = "npx warden audit export --out history.jsonl";
const KEYS = "npx warden audit keys --out keys.json";
const VERIFY_FILE = "npx warden audit --verify --file history.jsonl --keys keys.json --head .warden.notary/heads.jsonl";

interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** The parent's environment less anything that would pick another Warden, identity or notary home. */
function cleanEnv(): Record<string, string> {
  const drop = ["NATS_URL", "NATS_CREDS", "WARDEN_HOME", "WARDEN_NOTARY_HOME", "WARDEN_PRINCIPAL", "OPENAI_BASE_URL", "OPENAI_API_KEY"];
  return { ...Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && !drop.includes(e[0]))), LOG_LEVEL: "silent" };
}

/** A command of the page, by a shell in `cwd`; `npx warden` is this checkout's built CLI. */
function sh(command: string, cwd: string): Promise<Ran> {
  const line = command.replace(/^npx warden /, `"${process.execPath}" "${MAIN}" `);
  return new Promise((done) => {
    execFile("sh", ["-c", line], { cwd, env: cleanEnv(), timeout: 90_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) =>
      done({ code: err ? (typeof err.code === "number" ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}

/** `npx warden up --demo` in `cwd` (its default home, ./.warden), on a free port. */
async function up(cwd: string): Promise<{ child: ChildProcessWithoutNullStreams; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [MAIN, "up", "--demo", "--nats-port", "0", "--json"], { cwd, env: cleanEnv() });
  let out = "";
  let err = "";
  child.stdout.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr.on("data", (c: Buffer) => (err += c.toString()));
  const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)));
  await eventually(() => {
    if (child.exitCode !== null) throw new Error(`warden up exited ${child.exitCode}: ${err}`);
    expect((JSON.parse(out) as { ok: boolean }).ok).toBe(true);
  }, 60_000, 100);
  return {
    child,
    async stop() {
      child.kill("SIGTERM");
      expect(await exited, err).toBe(0);
    },
  };
}

async function readCall(cwd: string): Promise<string> {
  const r = await sh(`npx warden call kb.search --args '{"query":"refund"}' --mode llm --principal support-bot --json`, cwd);
  expect(r.code, r.stdout + r.stderr).toBe(0);
  const doc = JSON.parse(r.stdout) as { callId: string; status: string };
  expect(doc.status).toBe("succeeded");
  return doc.callId;
}

describe("backing up and restoring a `warden up` store as docs/operations.md says", { timeout: 300_000 }, () => {
  let dir: string;
  let original: string;
  let restored: string;
  let firstCall: string;
  let laterCall: string;
  const running: { stop(): Promise<void>; child: ChildProcessWithoutNullStreams }[] = [];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "warden-backup-"));
    original = join(dir, "original");
    restored = join(dir, "restored");
    mkdirSync(original);
    mkdirSync(restored);
  });

  afterAll(() => {
    for (const r of running) if (r.child.exitCode === null) r.child.kill("SIGKILL");
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("shows exactly these commands", () => {
    const lines = DOC.split("\n").map((l) => l.replace(/\s+#.*$/, "").trimEnd());
    for (const command of [BACKUP, RESTORE, VERIFY, EXPORT, KEYS, VERIFY_FILE]) expect(lines, command).toContain(command);
  });

  it("backs up a stopped store after a sealed call, and the original goes on to a second", async () => {
    const first = await up(original);
    running.push(first);
    firstCall = await readCall(original);
    // sealed by the notary before the copy is taken (it waits for the notary to reach the end)
    const sealed = await sh(VERIFY, original);
    expect(sealed.code, sealed.stdout + sealed.stderr).toBe(0);
    await first.stop();
    const backup = await sh(BACKUP, original);
    expect(backup.code, backup.stderr).toBe(0);

    const again = await up(original);
    running.push(again);
    laterCall = await readCall(original);
    expect((await sh(VERIFY, original)).code).toBe(0);
    await again.stop();
  });

  it("restores elsewhere, and the restored history verifies online and against its own head log", async () => {
    copyFileSync(join(original, "warden-backup.tar.gz"), join(restored, "warden-backup.tar.gz"));
    const extracted = await sh(RESTORE, restored);
    expect(extracted.code, extracted.stderr).toBe(0);
    expect(existsSync(join(restored, ".warden.notary", "heads.jsonl"))).toBe(true);
    const server = await up(restored);
    running.push(server);

    const online = await sh(VERIFY, restored);
    expect(online.code, online.stdout + online.stderr).toBe(0);
    // the call made before the backup is there; the one made after it is not
    const before = await sh(`npx warden trace ${firstCall} --json`, restored);
    expect(before.code, before.stderr).toBe(0);
    expect(before.stdout).toContain("ToolCallFinished");
    expect((await sh(`npx warden trace ${laterCall} --json`, restored)).code).not.toBe(0);

    for (const command of [EXPORT, KEYS]) {
      const ran = await sh(command, restored);
      expect(ran.code, `${command}: ${ran.stderr}`).toBe(0);
    }
    const offline = await sh(VERIFY_FILE, restored);
    expect(offline.code, offline.stdout + offline.stderr).toBe(0);
    // the restored copy still works: a new call, sealed, verifies
    await readCall(restored);
    expect((await sh(VERIFY, restored)).code).toBe(0);
    await server.stop();
  });

  it("does not pass the original's newer head log: the restore is older than what the notary logged", async () => {
    const newer = join(original, ".warden.notary", "heads.jsonl");
    const ran = await sh(`npx warden audit --verify --file history.jsonl --keys keys.json --head ${newer}`, restored);
    expect(ran.code).toBe(1);
    expect(ran.stdout).toMatch(/export_truncated|checkpoint_resealed/);
  });
});
