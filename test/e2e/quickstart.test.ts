import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "@warden/testing";
import { CHROMIUM, NO_CHROMIUM, startInbox, type RunningInbox } from "../support/inbox.js";

/**
 * The newcomer's path, as README.md's Quickstart writes it: `npm ci && npm start`, then the
 * commands of its second block in order (a read, a send that waits, alice approves it in the web
 * inbox in a real Chromium, the trace shows it ran). The commands are read from README.md, so the
 * page and this test cannot drift: a command added there is run here, one changed there is run as
 * changed, one this test does not know how to check fails it.
 */

const ROOT = resolve(import.meta.dirname, "../..");
const MAIN = resolve(ROOT, "cli/dist/main.js");

/** The shell words of one command line: blanks split, '…' and "…" quote (all the README's lines use). */
function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: string | undefined;
  for (const ch of line) {
    if (quote !== undefined) {
      if (ch === quote) quote = undefined;
      else word += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      word ??= "";
    } else if (/\s/.test(ch)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else word = (word ?? "") + ch;
  }
  if (quote !== undefined) throw new Error(`unclosed ${quote} in: ${line}`);
  if (word !== undefined) words.push(word);
  return words;
}

/** The command lines of each ```sh block of README.md's "Quickstart" section, comments left out. */
function quickstartBlocks(readme: string): string[][] {
  const section = readme.split(/^## /m).find((s) => s.startsWith("Quickstart\n"));
  if (section === undefined) throw new Error("README.md has no ## Quickstart section");
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) =>
    m[1]!
      .split("\n")
      // a comment after two blanks or more, or a line that is only a comment (a note under a command)
      .map((l) => l.replace(/\s{2,}#.*$/, "").trim())
      .filter((l) => l !== "" && !l.startsWith("#")),
  );
}

interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

describe("the README's quickstart, as a newcomer runs it", { timeout: 240_000 }, () => {
  const [setup, commands] = quickstartBlocks(readFileSync(join(ROOT, "README.md"), "utf8"));
  const dir = mkdtempSync(join(tmpdir(), "warden-quickstart-"));
  const { NATS_URL: _url, NATS_CREDS: _creds, WARDEN_HOME: _home, WARDEN_PRINCIPAL: _principal, ...parentEnv } = process.env;
  // npm start keeps its home in ./.warden; here a fresh one, named for every process alike
  const env = { ...parentEnv, WARDEN_HOME: join(dir, ".warden") };
  let up: ChildProcess | undefined;
  let upOut = "";
  let browser: Browser | undefined;
  let inbox: RunningInbox | undefined;

  /** `npx warden …` runs the built CLI (node_modules/.bin/warden imports it; cli-script.test.ts runs npx itself). */
  function warden(args: readonly string[]): Promise<Ran> {
    return new Promise((done) => {
      execFile(process.execPath, [MAIN, ...args], { cwd: ROOT, env, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
        done({ code: err ? (typeof err.code === "number" ? err.code : -1) : 0, stdout, stderr });
      });
    });
  }

  beforeAll(async () => {
    // `npm start` is the build, then the CLI's `up --demo`: the suite has built, so only the second runs
    const start = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts["start"] ?? "";
    const [build, run, ...rest] = start.split("&&").map((s) => shellWords(s.trim()));
    expect(build).toEqual(["npm", "run", "build", "--silent"]);
    expect(rest).toEqual([]);
    expect(run?.slice(0, 2)).toEqual(["node", "cli/dist/main.js"]);
    up = spawn(process.execPath, [MAIN, ...run!.slice(2)], { cwd: ROOT, env: { ...env, LOG_LEVEL: "warn" } });
    up.stdout!.on("data", (b: Buffer) => (upOut += b.toString()));
    up.stderr!.on("data", (b: Buffer) => (upOut += b.toString()));
    await eventually(() => {
      expect(up!.exitCode, upOut).toBeNull();
      expect(upOut).toContain("Warden is up.");
    }, 90_000, 200);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    inbox?.child.kill("SIGTERM");
    if (up !== undefined && up.exitCode === null) {
      const exited = new Promise((done) => up!.once("exit", done));
      up.kill("SIGTERM");
      const timer = setTimeout(() => up!.kill("SIGKILL"), 20_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it("starts with `npm ci && npm start`, and `npx warden` is the CLI it built", () => {
    expect(setup).toEqual(["npm ci && npm start", "npm test"]);
    expect(upOut).toMatch(/services +registry, policy, approver/);
    expect(upOut).toMatch(/skills +refund-check/);
    // the bin npm links runs the built CLI, the one these commands run
    const bin = realpathSync(join(ROOT, "node_modules/.bin/warden"));
    expect(bin).toBe(resolve(ROOT, "cli/bin/warden.js"));
    expect(readFileSync(bin, "utf8")).toContain('await import("../dist/main.js")');
  });

  it("runs every command of the second block in order: a send waits, alice approves it in the web inbox, its trace shows it ran", async () => {
    expect(existsSync(CHROMIUM), NO_CHROMIUM).toBe(true);
    const ids: Record<string, string> = {};
    const ran: string[] = [];
    for (const line of commands ?? []) {
      const words = shellWords(line);
      expect(words.slice(0, 2), line).toEqual(["npx", "warden"]);
      const args = words.slice(2).map((w) => w.replace(/^<(callId|approvalId)>$/, (_, k: string) => ids[k] ?? `<${k} not printed yet>`));
      const [command, tool] = args;
      ran.push(command === "call" ? `call ${tool ?? ""}` : (command ?? ""));

      if (command === "inbox") {
        await approveInBrowser(args);
        continue;
      }
      if (command === "approvals") {
        // the inbox is a projection of the stream: it holds the send a moment after the call
        await eventually(async () => {
          const r = await warden(args);
          expect(r.code, r.stderr).toBe(0);
          expect(r.stdout).toContain(`approval ${ids["approvalId"]}  call ${ids["callId"]}`);
        }, 20_000);
        continue;
      }
      if (command === "trace") {
        // the approved send runs a moment after the grant
        const r = await eventually(async () => {
          const t = await warden(args);
          expect(t.code, t.stderr).toBe(0);
          expect(t.stdout).toMatch(/customer\.message\s+\(domain\s+customer\):\s+succeeded/);
          return t;
        }, 60_000);
        expect(r.stdout).toMatch(/ApprovalGranted\s+alice/);
        expect(r.stdout).toMatch(/ToolCallFinished/);
        continue;
      }
      const r = await warden(args);
      if (command === "call" && tool === "customer.message") {
        // a send waits for a person: exit 3, its ids printed for the commands that follow
        expect(r.code, r.stdout + r.stderr).toBe(3);
        ids["callId"] = /^awaiting_approval {2}\(call (\S+)\)$/m.exec(r.stdout)?.[1] ?? "";
        ids["approvalId"] = /^next: npx warden approve (\S+) --as alice /m.exec(r.stdout)?.[1] ?? "";
        expect(ids["callId"], r.stdout).not.toBe("");
        expect(ids["approvalId"], r.stdout).not.toBe("");
        continue;
      }
      expect(r.code, `${line}\n${r.stdout}${r.stderr}`).toBe(0);
      if (command === "tools") {
        // what a model may see: each tool's grade, permission level and action type; a send is hidden
        expect(r.stdout).toMatch(/^NAME\s+WIRE NAME\s+VERSION\s+GRADE\s+LEVEL\s+ACTION\s+ON CALL/m);
        expect(r.stdout).toMatch(/^kb\.search\s+\S+\s+\S+\s+read\s+L0\s+search\s+allow/m);
        expect(r.stdout).toMatch(/^customer\.message\s+\S+\s+send\s+send_never_listed_for_llm/m);
      }
      if (command === "call") expect(r.stdout).toMatch(/^succeeded {2}\(call /);
      if (command === "audit") {
        // the approved send among the last hour's calls, by the last characters of its id
        expect(r.stdout).toMatch(/customer\.message\s+succeeded/);
        expect(r.stdout).toContain(ids["callId"]!.slice(-8));
      }
    }
    // the path the README promises, whatever else it adds around it
    expect(ran).toEqual(expect.arrayContaining(["tools", "call kb.search", "call customer.message", "inbox", "trace"]));
    expect(ran.indexOf("call customer.message")).toBeLessThan(ran.indexOf("inbox"));
    expect(ran.indexOf("inbox")).toBeLessThan(ran.indexOf("trace"));
  });

  /** `npx warden inbox --as <person>`: open the URL it prints in Chromium, and approve the send with `a`, then Enter. */
  async function approveInBrowser(args: readonly string[]): Promise<void> {
    inbox = await startInbox(env.WARDEN_HOME, args[args.indexOf("--as") + 1] ?? "", args);
    const url = inbox.url;
    browser = await chromium.launch({ executablePath: CHROMIUM });
    const page = await browser.newPage();
    await page.goto(url);
    const card = page.locator("article.card", { hasText: "customer.message" });
    await card.waitFor({ timeout: 20_000 });
    await card.click();
    await page.keyboard.press("a");
    await card.locator("form.panel-approve input[name=reason]").waitFor();
    await page.keyboard.press("Enter");
    await card.waitFor({ state: "detached", timeout: 15_000 });
    await page.locator("#history li.h-granted", { hasText: "customer.message" }).waitFor();
    await browser.close();
    browser = undefined;
    const exited = new Promise((done) => inbox!.child.once("exit", done));
    inbox.child.kill("SIGTERM");
    await exited;
    inbox = undefined;
  }
});
