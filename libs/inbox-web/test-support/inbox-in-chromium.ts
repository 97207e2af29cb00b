import { existsSync } from "node:fs";
import type { ApproverClient } from "@warden/sdk";
import { chromium, type Page } from "playwright-core";
import { approverActions, type InboxActions } from "../src/inbox-actions.js";
import { startInboxFeed } from "../src/inbox-feed.js";
import { startInboxServer, type InboxServer } from "../src/inbox-server.js";
import type { OwnCallsReader } from "../src/own-calls-client.js";

// The inbox's pages in Chromium, against the server with stand-ins (the whole-Warden tests are
// test/e2e/inbox-browser.test.ts and inbox-calls.test.ts).

export const CHROMIUM = process.env["WARDEN_CHROMIUM"] ?? "/usr/bin/chromium";
export const NO_CHROMIUM = `no Chromium at ${CHROMIUM}: install Debian's (apt-get install -y chromium; .ci/run does) or set WARDEN_CHROMIUM`;

export interface InboxInChromium {
  readonly page: Page;
  readonly server: InboxServer;
  /** Closes the browser, then the server and the feed. */
  stop(): Promise<void>;
}

export interface InboxInChromiumOptions {
  readonly client: ApproverClient;
  /** @default the approver client's own actions */
  readonly actions?: InboxActions;
  readonly calls: OwnCallsReader;
  readonly viewport: { readonly width: number; readonly height: number };
}

/**
 * The inbox server over the stand-ins, open in a fresh Chromium page with motion reduced;
 * undefined when there is no Chromium, so that each test fails saying so with NO_CHROMIUM
 * (a failing hook would only mark them skipped).
 */
export async function openInboxInChromium(o: InboxInChromiumOptions): Promise<InboxInChromium | undefined> {
  if (!existsSync(CHROMIUM)) return undefined;
  const feed = startInboxFeed({ client: o.client, refreshMs: 60_000 });
  const server = await startInboxServer({ feed, actions: o.actions ?? approverActions(o.client), calls: o.calls });
  const stopServer = async () => {
    await server.stop();
    await feed.stop();
  };
  const browser = await chromium.launch({ executablePath: CHROMIUM }).catch(async (err: unknown) => {
    await stopServer();
    throw err;
  });
  const page = await browser.newPage({ viewport: o.viewport });
  await page.emulateMedia({ reducedMotion: "reduce" });
  return {
    page,
    server,
    async stop() {
      await browser.close();
      await stopServer();
    },
  };
}
