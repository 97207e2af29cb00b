import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendEvent, silentLogger } from "@warden/bus";
import { newId, type WardenEvent } from "@warden/contracts/events";
import { putPolicyDocument } from "@warden/policy";
import { AUDIT_VIOLATION_KINDS, CALL_VIOLATION_KINDS, type Finding } from "@warden/projections";
import { openCursor, startProjectorService, type ProjectorService } from "@warden/projector";
import { startNotaryService, type NotaryService } from "@warden/notary";
import { generateSigningKeyPair } from "@warden/service-kit";
import { CRAFTED_POLICY, CRAFTED_VIOLATIONS, eventually, SYNTHETIC_APPROVER_KEY, syntheticCall, useTestNats } from "@warden/testing";
import type { CommandIo } from "./io.js";
import { runCli } from "./run-cli.js";

interface Ran {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

describe("warden audit, replay and trace over a crafted stream", () => {
  const server = useTestNats();
  const crafted = new Map<string, string>();
  let boundary: Date;
  let clean: string[] = [];
  let projector: ProjectorService | undefined;
  let notary: NotaryService | undefined;
  const startLiveProjector = async () => {
    projector = await startProjectorService({ bus: await server.nats.connectAs({ kind: "service", name: "projector", role: "projector" }), log: silentLogger() });
    const last = (await server.bus.jsm.streams.info("WARDEN_CALLS")).state.last_seq;
    const cursor = await openCursor(server.bus);
    await eventually(async () => expect(await cursor.read()).toBe(last));
    return last;
  };

  const warden = async (...argv: string[]): Promise<Ran> => {
    const out: string[] = [];
    const err: string[] = [];
    const io: CommandIo = {
      // the server and the operator's credentials (the default for these commands) come from WARDEN_HOME
      env: { WARDEN_HOME: server.nats.home.dir, LOG_LEVEL: "silent" },
      cwd: process.cwd(),
      out: (t) => out.push(t),
      err: (t) => err.push(t),
      stopSignal: () => new Promise(() => undefined),
    };
    const code = await runCli(argv, io);
    return { code, out: out.join("\n"), err: err.join("\n") };
  };

  const append = async (events: readonly WardenEvent[]) => {
    for (const e of events) expect((await appendEvent(server.bus, e)).status).toBe("written");
  };

  beforeAll(async () => {
    const put = await putPolicyDocument(server.bus, CRAFTED_POLICY);
    if (!put.ok) throw new Error(put.error.message);
    // clean calls first, then a boundary in time, then one crafted stream per violation kind
    clean = ["succeeded", "approved", "crashed", "expired"].map(() => newId());
    await append(clean.flatMap((callId, i) => syntheticCall({ callId, runId: newId(), outcome: (["succeeded", "approved", "crashed", "expired"] as const)[i]!, tool: i === 1 || i === 3 ? "customer.message" : "kb.search" })));
    await new Promise((r) => setTimeout(r, 50));
    boundary = new Date();
    await new Promise((r) => setTimeout(r, 50));
    for (const kind of [...CALL_VIOLATION_KINDS, ...AUDIT_VIOLATION_KINDS]) {
      // every outcome of a call shares one subject now: the server refuses the second one, so this
      // violation cannot be written to a stream any more (the reducer's own tests still cover it)
      if (kind === "finished_twice") continue;
      const callId = newId();
      crafted.set(kind, callId);
      await append(CRAFTED_VIOLATIONS[kind](callId, newId()));
    }
    // --verify also checks that the live read models reach the stream's end, and the history's
    // evidence: a notary seals it with a key pinned in the home, as `warden up` pins it
    await startLiveProjector();
    const notaryKey = generateSigningKeyPair();
    server.nats.home.setNotaryPublicKeys([notaryKey.publicKeyDerBase64]);
    server.nats.home.setApproverPublicKeys([SYNTHETIC_APPROVER_KEY.publicKeyDerBase64]);
    notary = await startNotaryService({ bus: await server.nats.connectAs({ kind: "service", name: "notary", role: "notary" }), log: silentLogger(), signingKeyPem: notaryKey.privateKeyPem, intervalMs: 50 });
  });
  afterAll(async () => {
    await notary?.stop();
    await projector?.stop();
  });

  it("reports every violation kind with --verify, naming the call, and exits 1", async () => {
    const r = await warden("audit", "--verify", "--json");
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.out) as { verified: boolean; findings: Finding[]; calls: { callId: string }[]; policyVersion: string };
    expect(doc).toMatchObject({ verified: false, policyVersion: "crafted-1" });
    for (const [kind, callId] of crafted) {
      expect(doc.findings.filter((f) => f.kind === kind).map((f) => f.callId), kind).toContain(callId);
    }
    // the clean calls are listed and pass
    for (const id of clean) expect(doc.findings.filter((f) => f.callId === id)).toEqual([]);
    expect(doc.calls.map((c) => c.callId)).toEqual(expect.arrayContaining(clean));
  });

  it("verifies as an auditor too, whose credentials read everything and write nothing", async () => {
    await server.nats.home.addIdentity({ kind: "auditor", name: "auditor" });
    const r = await warden("audit", "--verify", "--as", "auditor", "--json");
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.out) as { verified: boolean; findings: Finding[] };
    expect(doc.verified).toBe(false);
    expect(doc.findings.map((f) => f.callId)).toContain(crafted.get("binding_mismatch"));
    const trace = await warden("trace", crafted.get("grant_args_mismatch")!, "--as", "auditor");
    expect(trace.code).toBe(0);
    expect(trace.out).toContain("VIOLATION grant_args_mismatch at ApprovalGranted");
  });

  it("names each violation on its own line in text", async () => {
    const r = await warden("audit", "--verify");
    expect(r.code).toBe(1);
    for (const [kind, callId] of crafted) expect(r.out).toMatch(new RegExp(`VIOLATION ${kind} call ${callId}`));
    expect(r.out).toMatch(/verified \d+ calls against the invariants \(policy crafted-1\): \d+ violations/);
  });

  it("passes a range of clean calls and exits 0", async () => {
    const r = await warden("audit", "--verify", "--until", boundary.toISOString(), "--json");
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.out) as { verified: boolean; calls: { callId: string; status: string }[] };
    expect(doc.verified).toBe(true);
    expect(doc.calls.map((c) => c.callId).sort()).toEqual([...clean].sort());
    expect(doc.calls.map((c) => c.status).sort()).toEqual(["expired", "outcome_unknown", "succeeded", "succeeded"]);
  });

  it("replays only the time range asked for, and filters by principal, tool, mode and outcome", async () => {
    const since = await warden("audit", "--since", boundary.toISOString(), "--jsonl");
    const rows = since.out.split("\n").map((l) => JSON.parse(l) as { callId: string });
    expect(rows.some((r) => clean.includes(r.callId))).toBe(false);
    expect(rows.map((r) => r.callId)).toContain(crafted.get("binding_mismatch"));

    const byOutcome = await warden("audit", "--outcome", "outcome_unknown", "--until", boundary.toISOString(), "--json");
    expect((JSON.parse(byOutcome.out) as { calls: { callId: string }[] }).calls.map((c) => c.callId)).toEqual([clean[2]]);
    const byPrincipal = await warden("audit", "--principal", "alice", "--json");
    expect((JSON.parse(byPrincipal.out) as { calls: { callId: string }[] }).calls.map((c) => c.callId)).toEqual([crafted.get("grant_by_requester")]);
    const byTool = await warden("audit", "--tool", "customer.message", "--mode", "plan", "--until", boundary.toISOString(), "--json");
    expect((JSON.parse(byTool.out) as { calls: { callId: string }[] }).calls.map((c) => c.callId).sort()).toEqual([clean[1], clean[3]].sort());
    const table = await warden("audit", "--until", boundary.toISOString(), "--wide");
    expect(table.out.split("\n")[0]).toMatch(/^REQUESTED +CALL +PRINCIPAL +MODE +TOOL +STATUS +DECISION +APPROVER +MS +ARGS HASH +VIOLATIONS$/);
    expect(table.out).toContain(clean[0]);
  });

  it("refuses a bad time or outcome with a usage error", async () => {
    expect((await warden("audit", "--since", "yesterday-ish")).code).toBe(1);
    expect((await warden("audit", "--outcome", "great", "--json")).out).toContain("--outcome must be one of");
  });

  it("traces a call's whole chain in order, with its violations", async () => {
    const r = await warden("trace", crafted.get("grant_args_mismatch")!, "--wide");
    expect(r.code).toBe(0);
    const types = [...r.out.matchAll(/\dZ  (\w+) /g)].map((m) => m[1]);
    expect(types).toEqual(["ToolCallRequested", "ToolArgsValidated", "ToolPolicyChecked", "ApprovalRequested", "ApprovalGranted", "ToolCallStarted", "ToolCallFinished"]);
    expect(r.out).toContain("VIOLATION grant_args_mismatch at ApprovalGranted");
    const json = JSON.parse((await warden("trace", clean[1]!, "--json")).out) as { steps: { type: string; actor: string }[]; status: string };
    expect(json.status).toBe("succeeded");
    expect(json.steps.map((s) => s.actor)).toEqual(["bot", "registry", "policy", "approver", "alice", "ex1", "ex1"]);
  });

  it("rebuilds every read model with the live models' digests over the whole stream", async () => {
    const last = (await server.bus.jsm.streams.info("WARDEN_CALLS")).state.last_seq;
    await eventually(async () => expect(await (await openCursor(server.bus)).read()).toBe(last));
    const r = await warden("replay", "--rebuild", "--suffix", "audit1");
    expect(r.code).toBe(0);
    expect(r.out).toMatch(new RegExp(`^replayed ${last} events up to seq ${last}`));
    expect(r.out).toMatch(/calls +warden_calls_audit1 +\d+ +sha256:[0-9a-f]{64} +same/);
    expect(r.out).toContain(`every digest equals the live models' at seq ${last}`);
  });

  it("reports a stopped or stuck projector in replay and audit --verify instead of comparing up to its cursor", async () => {
    await projector?.stop();
    projector = undefined;
    const cursor = await (await openCursor(server.bus)).read();
    await append(syntheticCall({ callId: newId(), runId: newId(), outcome: "succeeded" }));
    const last = (await server.bus.jsm.streams.info("WARDEN_CALLS")).state.last_seq;
    expect(last).toBeGreaterThan(cursor);
    const behind = `projector cursor at seq ${cursor}, stream at ${last}`;
    try {
      const replay = await warden("replay", "--projector-wait", "300ms");
      expect(replay.code).toBe(1);
      expect(replay.out).toContain(`PROJECTOR BEHIND: ${behind}`);
      expect(replay.out).not.toContain("every digest equals");
      const json = JSON.parse((await warden("replay", "--json", "--projector-wait", "300ms")).out) as { toSeq: number; projector: { caughtUp: boolean }; matches?: boolean };
      expect(json).toMatchObject({ toSeq: last, projector: { caughtUp: false, cursor, target: last } });
      expect(json).not.toHaveProperty("matches");

      const audit = await warden("audit", "--verify", "--json", "--projector-wait", "300ms");
      expect(audit.code).toBe(1);
      const doc = JSON.parse(audit.out) as { verified: boolean; findings: { kind: string; detail: string }[] };
      expect(doc.verified).toBe(false);
      expect(doc.findings).toContainEqual(expect.objectContaining({ kind: "projector_behind", detail: expect.stringContaining(behind) }));
      const text = await warden("audit", "--verify", "--until", boundary.toISOString(), "--projector-wait", "300ms");
      expect(text.code).toBe(1);
      expect(text.out).toContain(`FINDING projector_behind: ${behind}`);
    } finally {
      await startLiveProjector();
    }
    // caught up again: the same checks pass
    expect((await warden("replay")).out).toContain(`every digest equals the live models' at seq ${last}`);
    expect((await warden("audit", "--verify", "--until", boundary.toISOString())).code).toBe(0);
  });
});
