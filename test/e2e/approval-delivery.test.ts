import { spawn } from "node:child_process";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Bus } from "@warden/bus";
import type { ApprovalRequested } from "@warden/contracts/events";
import { createApproverClient, startWebhookNotifier, webhookTarget, type WebhookCard } from "@warden/sdk";
import { eventually } from "@warden/testing";
import { usualPrincipals } from "../support/usual-principals.js";
import { useTestWarden } from "../support/use-test-warden.js";

const CLI = join(import.meta.dirname, "../../cli/dist/main.js");

/** Takes the next `n` requests from a watch and leaves the loop, as an app that handled them and stopped would. */
async function take(watch: AsyncIterable<ApprovalRequested>, n: number): Promise<ApprovalRequested[]> {
  const got: ApprovalRequested[] = [];
  if (n === 0) return got;
  for await (const r of watch) {
    got.push(r);
    if (got.length === n) break;
  }
  return got;
}

describe("delivery: approval requests reach a person's apps durably, on the command line and on a webhook", () => {
  const t = useTestWarden({
    demo: true,
    policy: {
      version: "e2e-delivery",
      principals: { ...usualPrincipals("alice", "planner"), bob: { kind: "human", approves: ["send"] } },
      approvalTtlSeconds: { write: 3600, send: 3600 },
    },
  }, async (w) => ({
    planner: await w.agent("planner"),
  }));

  const ask = async (text: string) => {
    const r = await t.planner.call("customer.message", { customerId: `C-${text}`, text }, { mode: "plan" });
    expect(r.status).toBe("awaiting_approval");
    return r.approvalId!;
  };

  it("delivers the requests made while the app was down when it comes back, and not the ones it already handled", async () => {
    const firstRun: Bus = await t.w.humanBus("alice");
    const phone = createApproverClient({ bus: firstRun, approver: "alice" });
    const before = await ask("before");
    const handled = await take(phone.watch({ durable: "phone" }), 1);
    expect(handled.map((r) => r.data.approvalId)).toEqual([before]);
    await firstRun.close();

    // the app is down: two requests come, and one more that bob decides before the app is back
    const whileDown = [await ask("down-1"), await ask("down-2")];
    const decidedMeanwhile = await ask("down-decided");
    const bob = await t.w.approver("bob");
    const inbox = await bob.pending();
    const card = inbox.ok ? inbox.value.find((p) => p.approvalId === decidedMeanwhile) : undefined;
    expect(await bob.deny(card!.approvalId, card!.argsHash, "not now")).toMatchObject({ ok: true });

    const secondRun = await t.w.approver("alice");
    const watch = secondRun.watch({ durable: "phone" });
    const cards = watch[Symbol.asyncIterator]();
    const next = async () => ((await cards.next()).value as ApprovalRequested).data.approvalId;
    expect([await next(), await next()]).toEqual(whileDown);
    // then new ones as they come
    const after = ask("after");
    expect(await next()).toBe(await after);
    watch.stop();
    expect((await cards.next()).done).toBe(true);
    // another durable name of the same person starts from what is open now, oldest first
    const laptop = (await t.w.approver("alice")).watch({ durable: "laptop" });
    expect((await take(laptop, 4)).map((r) => r.data.approvalId)).toEqual([before, ...whileDown, await after]);
    laptop.stop();
  }, 60_000);

  it("ends a durable watch with the server's refusal when the durable is another person's", async () => {
    // bob's connection asking under alice's name: the server refuses the subject
    const forged = createApproverClient({ bus: await t.w.humanBus("bob"), approver: "alice" }).watch({ durable: "phone" });
    expect(await take(forged, 0)).toEqual([]);
    for await (const _ of forged) expect.unreachable("a refused watch delivers nothing");
    expect(forged.error?.code).toBe("FORBIDDEN");
  }, 30_000);

  describe("a webhook notifier", () => {
    let server: Server;
    let url: string;
    const received: { body: WebhookCard; approvalId: string | undefined }[] = [];
    let refuseNext = 0;
    beforeAll(async () => {
      server = createServer((req: IncomingMessage, res) => {
        let text = "";
        req.on("data", (c: Buffer) => (text += c.toString()));
        req.on("end", () => {
          if (refuseNext > 0) {
            refuseNext--;
            res.writeHead(503).end();
            return;
          }
          received.push({ body: JSON.parse(text) as WebhookCard, approvalId: req.headers["x-warden-approval-id"] as string | undefined });
          res.writeHead(204).end();
        });
      });
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/cards`;
    });
    afterAll(async () => new Promise<void>((r) => server.close(() => r())));

    it("posts each new card as JSON, retrying a webhook that refuses, and never holds the approval up", async () => {
      const alice = await t.w.approver("alice");
      // the cards open so far are posted too (a new durable starts from what is open); only this test's matter
      refuseNext = 2;
      const notifier = startWebhookNotifier({ approver: alice, url, durable: "hook", firstBackoffMs: 50 });
      if (!notifier.ok) throw new Error(notifier.error.message);
      try {
        const approvalId = await ask("webhook");
        const posted = await eventually(() => {
          const hit = received.find((r) => r.approvalId === approvalId);
          expect(hit).toBeDefined();
          return hit!;
        }, 20_000);
        expect(posted.body).toMatchObject({ type: "approval.requested", approver: "alice", card: { type: "ApprovalRequested", tool: "customer.message", principal: "planner", data: { approvalId, grade: "send", args: { customerId: "C-webhook" } } } });
        expect(refuseNext).toBe(0);
        expect(received.filter((r) => r.approvalId === approvalId)).toHaveLength(1);
      } finally {
        await notifier.value.stop();
      }
    }, 40_000);

    it("refuses a URL that is neither loopback nor an allowed https host, with a message naming the setting", () => {
      expect(webhookTarget("http://127.0.0.1:9/x").ok).toBe(true);
      expect(webhookTarget("http://localhost:9/x").ok).toBe(true);
      const foreign = webhookTarget("https://hooks.example.com/x");
      expect(foreign).toMatchObject({ ok: false, error: { code: "INVALID_REQUEST" } });
      expect(foreign.ok ? "" : foreign.error.message).toContain("WARDEN_WEBHOOK_ALLOW_HOSTS");
      expect(webhookTarget("https://hooks.example.com/x", ["hooks.example.com"]).ok).toBe(true);
      expect(webhookTarget("http://hooks.example.com/x", ["hooks.example.com"])).toMatchObject({ ok: false });
      expect(webhookTarget("https://user:pw@hooks.example.com/x", ["hooks.example.com"])).toMatchObject({ ok: false });
      expect(webhookTarget("file:///etc/passwd")).toMatchObject({ ok: false });
    });
  });

  it("warden approvals --watch streams new cards as lines (--json: one object a line) until stopped", async () => {
    await t.w.nats.home.addIdentity({ kind: "human", name: "alice" });
    const { NATS_URL: _url, NATS_CREDS: _creds, WARDEN_HOME: _home, ...env } = process.env;
    const child = spawn(process.execPath, [CLI, "approvals", "--as", "alice", "--watch", "--json", "--durable", "cli-test"], {
      env: { ...env, WARDEN_HOME: t.w.nats.home.dir, LOG_LEVEL: "silent" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (b: Buffer) => (out += b.toString()));
    child.stderr.on("data", (b: Buffer) => (err += b.toString()));
    const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
    try {
      await eventually(() => expect(err).toContain("Ctrl-C stops"), 20_000);
      const approvalId = await ask("cli-watch");
      const line = await eventually(() => {
        const lines = out.split("\n").filter(Boolean).map((l) => JSON.parse(l) as ApprovalRequested);
        const hit = lines.find((l) => l.data.approvalId === approvalId);
        expect(hit).toBeDefined();
        return hit!;
      }, 20_000);
      expect(line).toMatchObject({ type: "ApprovalRequested", tool: "customer.message", principal: "planner" });
      child.kill("SIGINT");
      expect(await exited).toBe(0);
    } finally {
      child.kill("SIGKILL");
    }
    // without --json, a human line per card; a new durable starts with what is open, this card included
    const human = spawn(process.execPath, [CLI, "approvals", "--as", "alice", "--watch", "--durable", "cli-human"], {
      env: { ...env, WARDEN_HOME: t.w.nats.home.dir, LOG_LEVEL: "silent" },
      stdio: ["ignore", "pipe", "ignore"],
    });
    let lines = "";
    human.stdout.on("data", (b: Buffer) => (lines += b.toString()));
    const humanExited = new Promise<number | null>((r) => human.once("exit", (code) => r(code)));
    try {
      const approvalId = await ask("cli-human");
      const line = await eventually(() => {
        const hit = lines.split("\n").find((l) => l.startsWith(approvalId));
        expect(hit).toBeDefined();
        return hit!;
      }, 20_000);
      expect(line).toMatch(new RegExp(`^${approvalId}  customer\\.message \\(send\\)  by planner \\(plan\\)  expires \\S+  args .*C-cli-human`));
      human.kill("SIGINT");
      expect(await humanExited).toBe(0);
    } finally {
      human.kill("SIGKILL");
    }
  }, 60_000);

  it("warden approvals --watch refuses a webhook on a host nobody allowed before connecting", async () => {
    const { NATS_URL: _url, NATS_CREDS: _creds, WARDEN_HOME: _home, ...env } = process.env;
    const ran = await new Promise<{ code: number | null; err: string }>((resolve) => {
      const child = spawn(process.execPath, [CLI, "approvals", "--as", "alice", "--watch", "--webhook", "https://hooks.example.com/x"], {
        env: { ...env, WARDEN_HOME: t.w.nats.home.dir, LOG_LEVEL: "silent" },
        stdio: ["ignore", "ignore", "pipe"],
      });
      let err = "";
      child.stderr.on("data", (b: Buffer) => (err += b.toString()));
      child.once("exit", (code) => resolve({ code, err }));
    });
    expect(ran.code).not.toBe(0);
    expect(ran.err).toContain("hooks.example.com is neither loopback nor allowed");
  }, 30_000);
});
