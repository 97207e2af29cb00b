import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { appendEvent, decodeJson, kvGetJson, kvPutJson, readEvent, requestRpc } from "@warden/bus";
import { newId, type ToolPolicyChecked } from "@warden/contracts/events";
import { BUCKET_APPROVAL_LOCKS, BUCKET_POLICY, callEventSubject, decideSubject, STREAM_CALLS } from "@warden/contracts/subjects";
import { POLICY_DOCUMENT_KEY, PolicyDocumentSchema } from "@warden/contracts/policy";
import { generateSigningKeyPair } from "@warden/service-kit";
import { eventually, useTestNats } from "@warden/testing";
import { ApprovalRecordSchema } from "./domain/approval-record.js";
import { policyDecision } from "../test-support/policy-decision.js";

/**
 * The approver as its own OS process, frozen (SIGSTOP) at the moment the server stores what it
 * wrote, then killed (SIGKILL) and started again: the crash windows of a decision, hit for real,
 * with nothing in the service made for the test. The admin watches the lock record's and the
 * decide request's subjects, as any subscriber with the rights could.
 */
const MAIN = resolve(dirname(fileURLToPath(import.meta.url)), "../dist/main.js");
const APPROVER = { kind: "service", name: "approver", role: "approver" } as const;
const ATTEMPTS = 5;

const server = useTestNats();
let keyFile: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  await kvPutJson(await server.bus.kvm.open(BUCKET_POLICY), POLICY_DOCUMENT_KEY, PolicyDocumentSchema.parse({ version: "kill-1", principals: { alice: { kind: "human", approves: ["send"] } } }));
  keyFile = join(mkdtempSync(join(tmpdir(), "warden-approver-kill-")), "approver.pem");
  writeFileSync(keyFile, generateSigningKeyPair().privateKeyPem, { mode: 0o600 });
});
afterEach(() => {
  for (const c of children.splice(0)) c.kill("SIGKILL");
});

/** Starts the approver process and resolves once it logged that it started. */
async function startApprover(): Promise<ChildProcess> {
  const env = { ...process.env, NATS_URL: server.nats.url, NATS_CREDS: await server.nats.credsOf(APPROVER), LOG_LEVEL: "info", WARDEN_APPROVER_SIGNING_KEY_FILE: keyFile, WARDEN_APPROVER_SWEEP_MS: "100" };
  const c = spawn(process.execPath, [MAIN], { env, stdio: ["ignore", "pipe", "inherit"] });
  children.push(c);
  await new Promise<void>((ok, fail) => {
    let seen = "";
    c.stdout!.on("data", (b: Buffer) => {
      seen = (seen + b.toString()).slice(-4096);
      if (seen.includes('"service started"')) ok();
    });
    c.once("exit", (code) => fail(new Error(`approver exited ${code} before it started`)));
  });
  return c;
}

const gone = (c: ChildProcess) => new Promise<void>((r) => (c.exitCode !== null || c.signalCode !== null ? r() : c.once("exit", () => r())));

async function kill(c: ChildProcess): Promise<void> {
  c.kill("SIGKILL");
  await gone(c);
}

/** A send the policy sent for approval; resolves with its ApprovalRequested. */
async function requestApproval() {
  const ev = policyDecision({ args: { customerId: "c-1", text: `hello ${newId()}` }, policyVersion: "kill-1" });
  expect((await appendEvent(server.bus, ev)).status).toBe("written");
  const requested = await eventually(async () => {
    const r = await readEvent(server.bus, ev.domain, ev.callId, "ApprovalRequested");
    expect(r).toBeDefined();
    return r!;
  }, 15_000);
  return { ev, approvalId: requested.data.approvalId };
}

/** How many ApprovalGranted messages the stream holds for the call (not just the last). */
async function grantsStored(domain: string, callId: string): Promise<number> {
  const subject = callEventSubject(domain, callId, "ApprovalGranted");
  const info = await server.bus.jsm.streams.info(STREAM_CALLS, { subjects_filter: subject });
  return Object.values(info.state.subjects ?? {}).reduce((n, x) => n + x, 0);
}

/**
 * Freezes the approver the moment `subject` carries a message `when` accepts (the server has
 * stored it, or the request reached the service), then asks `alice`'s grant; resolves with what
 * she was told and whether the freeze happened.
 */
async function grantFrozenAt(c: ChildProcess, approvalId: string, grant: { decision: "grant"; argsHash: string }, subject: string, when: (data: Uint8Array) => boolean) {
  let frozen = false;
  const sub = server.bus.nc.subscribe(subject, {
    callback: (_err, m) => {
      if (frozen || !when(m.data)) return;
      frozen = true;
      // synchronously, in the same turn the message arrived: before the approver's next step
      c.kill("SIGSTOP");
    },
  });
  await server.bus.nc.flush();
  const told = await requestRpc(server.bus, decideSubject("alice", approvalId), grant, 3_000);
  sub.unsubscribe();
  return { told, frozen };
}

const grantOf = (ev: ToolPolicyChecked) => ({ decision: "grant" as const, argsHash: ev.data.argsHash });

const decided = (data: Uint8Array) => {
  const d = decodeJson(data);
  return d.ok && ApprovalRecordSchema.safeParse(d.value).data?.status === "granted";
};

/**
 * Runs `attempt` on a fresh approver process and approval request until it says the freeze fell in
 * `window` (a freeze can come too late), ATTEMPTS times at most, killing the processes it started
 * after each; fails the test if the freeze never fell there.
 */
async function untilTheFreezeHits(window: string, attempt: (approver: ChildProcess, ev: ToolPolicyChecked, approvalId: string) => Promise<boolean>): Promise<void> {
  let hit = false;
  let attempts = 0;
  while (!hit && attempts < ATTEMPTS) {
    attempts++;
    const approver = await startApprover();
    const { ev, approvalId } = await requestApproval();
    hit = await attempt(approver, ev, approvalId);
    for (const c of children.splice(0)) await kill(c);
  }
  expect(hit, `the freeze fell ${window} in none of ${attempts} attempts`).toBe(true);
}

describe("an approver killed in the middle of a decision", () => {
  it("between writing the signed grant to its lock record and appending it: the grant lands once after the restart, and the person is told it was theirs", async () => {
    await untilTheFreezeHits("between the record and the append", async (approver, ev, approvalId) => {
      const { told, frozen } = await grantFrozenAt(approver, approvalId, grantOf(ev), `$KV.${BUCKET_APPROVAL_LOCKS}.${approvalId}`, decided);
      expect(frozen).toBe(true);
      if (told.ok) {
        // the freeze came too late (the approver had appended and answered): a plain grant, once
        expect(told).toMatchObject({ ok: true, value: { ok: true, decision: "grant" } });
        expect(await grantsStored(ev.domain, ev.callId)).toBe(1);
        return false;
      }
      // frozen before it could answer: the person hears that nobody answered (retryable)
      expect(told).toMatchObject({ ok: false, error: { code: "UNAVAILABLE" } });
      await kill(approver);
      // the window is hit when the signed grant is in the record but not on the stream
      const hit = (await grantsStored(ev.domain, ev.callId)) === 0;
      const record = (await kvGetJson(await server.bus.kvm.open(BUCKET_APPROVAL_LOCKS), approvalId, ApprovalRecordSchema))?.value;
      expect(record?.status).toBe("granted");
      const signed = record?.decision?.decision === "grant" ? record.decision.grant : undefined;
      expect(signed).toBeDefined();
      await startApprover();
      // the restarted copy's sweeper appends the grant the record holds, as it was signed: one grant
      await eventually(async () => expect(await grantsStored(ev.domain, ev.callId)).toBe(1), 15_000);
      const landed = await readEvent(server.bus, ev.domain, ev.callId, "ApprovalGranted");
      expect(landed?.data).toEqual(signed);
      // asking again (the person was told nobody answered) says the decision was theirs, and signs nothing new
      const again = await requestRpc(server.bus, decideSubject("alice", approvalId), grantOf(ev));
      expect(again).toMatchObject({ ok: true, value: { ok: false, refusal: "ALREADY_DECIDED", message: expect.stringMatching(/already granted by alice/) } });
      expect(await grantsStored(ev.domain, ev.callId)).toBe(1);
      return hit;
    });
  }, 120_000);

  it("before the signed grant was written anywhere: after the restart the approval is still open, the person decides again, and one grant lands", async () => {
    await untilTheFreezeHits("before anything was written", async (approver, ev, approvalId) => {
      // frozen as the request arrives: it has signed nothing, written nothing
      const { told, frozen } = await grantFrozenAt(approver, approvalId, grantOf(ev), decideSubject("alice", approvalId), () => true);
      expect(frozen).toBe(true);
      await kill(approver);
      const status = (await kvGetJson(await server.bus.kvm.open(BUCKET_APPROVAL_LOCKS), approvalId, ApprovalRecordSchema))?.value.status;
      if (told.ok || status !== "pending") {
        // the freeze came too late: the grant was written (and is appended by whoever runs next), once
        await startApprover();
        await eventually(async () => expect(await grantsStored(ev.domain, ev.callId)).toBe(1), 15_000);
        return false;
      }
      expect(told).toMatchObject({ ok: false, error: { code: "UNAVAILABLE" } });
      await startApprover();
      const again = await requestRpc(server.bus, decideSubject("alice", approvalId), grantOf(ev));
      expect(again).toMatchObject({ ok: true, value: { ok: true, decision: "grant" } });
      await eventually(async () => expect(await grantsStored(ev.domain, ev.callId)).toBe(1), 15_000);
      // nothing of the killed attempt comes back later
      await new Promise((r) => setTimeout(r, 1_000));
      expect(await grantsStored(ev.domain, ev.callId)).toBe(1);
      return true;
    });
  }, 120_000);
});
