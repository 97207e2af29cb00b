import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PolicyDocumentInput } from "@warden/contracts/policy";
import { eventually } from "@warden/testing";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, expect } from "vitest";
import { startTestWarden, type TestWarden } from "./warden.js";

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

/** Where a browser test writes its screenshots: docs/images when WARDEN_UPDATE_SCREENSHOTS=1, else a temp folder. */
export function screenshotsDir(prefix: string): string {
  const dir = process.env["WARDEN_UPDATE_SCREENSHOTS"] === "1" ? join(import.meta.dirname, "../../docs/images") : mkdtempSync(join(tmpdir(), prefix));
  mkdirSync(dir, { recursive: true });
  return dir;
}

export type InboxInChromium<C extends object = object> = {
  readonly w: TestWarden;
  readonly inbox: RunningInbox;
  readonly browser: Browser;
  readonly page: Page;
} & Readonly<C>;

export interface InboxInChromiumOptions {
  readonly policy: PolicyDocumentInput;
  /** Whose inbox: a human of the policy. */
  readonly person: string;
  readonly viewport: { readonly width: number; readonly height: number };
}

/**
 * A file's Warden (the demo, in-process, with `policy`), `warden inbox --as person` started as a
 * person would, and a page of a headless Chromium, made before the file's tests and stopped after
 * them; `setUp` then makes what the tests share (the clients that call), as useTestWarden's does.
 * Without Chromium nothing starts, and each test fails saying so (`NO_CHROMIUM`): a failing hook
 * would only mark them skipped.
 */
export function useInboxInChromium<C extends object = object>(o: InboxInChromiumOptions, setUp?: (w: TestWarden) => Promise<C>): InboxInChromium<C> {
  let started: InboxInChromium<C> | undefined;
  let browser: Browser | undefined;
  let w: TestWarden | undefined;
  let inbox: RunningInbox | undefined;
  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) return;
    w = await startTestWarden({ demo: true, policy: o.policy });
    await w.nats.credsOf({ kind: "human", name: o.person });
    inbox = await startInbox(w.nats.home.dir, o.person);
    browser = await chromium.launch({ executablePath: CHROMIUM });
    // one context, so a test may open a second tab of the same session (page.context().newPage())
    const page = await (await browser.newContext({ viewport: o.viewport, deviceScaleFactor: 1 })).newPage();
    // the new-card highlight fades over a second; without motion the screenshots show the page at rest
    await page.emulateMedia({ reducedMotion: "reduce" });
    started = { ...((await setUp?.(w)) ?? ({} as C)), w, inbox, browser, page };
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    inbox?.child.kill("SIGTERM");
    await w?.stop();
  });
  return new Proxy({} as InboxInChromium<C>, {
    get(_, key) {
      expect(existsSync(CHROMIUM), NO_CHROMIUM).toBe(true);
      if (started === undefined) throw new Error("useInboxInChromium: read it inside a test, after its beforeAll");
      return started[key as keyof InboxInChromium<C>];
    },
  });
}
