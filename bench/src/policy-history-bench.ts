import { appendEvent, kvPutJson, silentLogger, type Bus } from "@warden/bus";
import { newId, type ToolArgsValidated } from "@warden/contracts/events";
import { BUCKET_TOOLS, toolKey } from "@warden/contracts/subjects";
import { type ToolRecord } from "@warden/contracts/descriptor";
import { type PolicyDocumentInput } from "@warden/contracts/policy";
import { argsHash } from "@warden/contracts/json";
import { natsServersIn } from "@warden/local-nats";
import { putPolicyDocument, startPolicyService } from "@warden/policy";
import { startTestNats } from "@warden/testing";
import { BENCH_SUM_RULE, benchPayRecord } from "./bench-pay.js";
import { cpuSeconds } from "./processes.js";

/**
 * CPU per policy decision with and without history rules (docs/policy.md, History conditions):
 * the policy service in this process over its own nats-server, fed ToolArgsValidated events
 * directly (no registry, no executor), once with a document without history rules and once with
 * two that concern every call: a sum limit over the run (one index read and one compare-and-set)
 * and an `absent` over reads of the same record (one more read). Each call is its own run, so
 * every key is fresh, as for a new conversation. The numbers are this process (policy + the
 * feeder, the same in both) and nats-server, per decision.
 *
 *   node bench/dist/policy-history-bench.js [calls]
 */
const CALLS = Number(process.argv[2] ?? 3000);
const IN_FLIGHT = 64;

const BASE: PolicyDocumentInput = { version: "bench-plain", principals: { bench: { kind: "agent" } } };
const HISTORY: PolicyDocumentInput = {
  ...BASE,
  version: "bench-history",
  rules: [
    BENCH_SUM_RULE,
    {
      id: "bench.read-first",
      match: { tool: "bench.pay" },
      when: { history: { scope: "run", within: "1h", calls: { tool: "bench.read", outcome: "ok" }, same: ["account"], exists: true } },
      effect: "require_approval",
      reason: "never holds here: nothing reads first",
    },
  ],
};

function validated(tool: ToolRecord, i: number): ToolArgsValidated {
  const args = { account: `A-${i % 100}`, amount: 10 };
  const d = tool.descriptor;
  return {
    v: 1,
    type: "ToolArgsValidated",
    eventId: newId(),
    callId: newId(),
    domain: "bench",
    tool: d.name,
    principal: "bench",
    mode: "plan",
    ts: new Date().toISOString(),
    causationId: newId(),
    causeHash: `sha256:${"c".repeat(64)}`,
    correlationId: newId(),
    data: { version: d.version, descriptorHash: tool.descriptorHash, grade: d.grade, argsHash: argsHash(args), args, scope: null, flags: {} },
  };
}

/** Feeds `n` calls, at most IN_FLIGHT undecided at once, and waits for every decision. */
async function feed(admin: Bus, tool: ToolRecord, n: number): Promise<void> {
  let decided = 0;
  let wake: () => void = () => undefined;
  const sub = admin.nc.subscribe("warden.call.bench.*.ToolPolicyChecked", {
    callback: () => {
      decided++;
      wake();
    },
  });
  for (let sent = 0; sent < n; ) {
    while (sent - decided >= IN_FLIGHT) await new Promise<void>((done) => (wake = done));
    const batch = Math.min(IN_FLIGHT - (sent - decided), n - sent);
    await Promise.all(Array.from({ length: batch }, (_, k) => appendEvent(admin, validated(tool, sent + k))));
    sent += batch;
  }
  while (decided < n) await new Promise<void>((done) => (wake = done));
  sub.unsubscribe();
}

async function round(doc: PolicyDocumentInput): Promise<{ selfUs: number; natsUs: number; perSecond: number }> {
  const nats = await startTestNats();
  try {
    const admin = await nats.bus("bench-admin");
    const tool = benchPayRecord(new Date().toISOString());
    const descriptor = tool.descriptor;
    await kvPutJson(await admin.kvm.open(BUCKET_TOOLS), toolKey(descriptor.name, descriptor.version), tool);
    const put = await putPolicyDocument(admin, doc);
    if (!put.ok) throw new Error(put.error.message);
    const policy = await startPolicyService({ bus: await nats.connectAs({ kind: "service", name: "policy", role: "policy" }), log: silentLogger(), concurrency: 32 });
    while (policy.document().version !== doc.version) await new Promise((done) => setTimeout(done, 20));
    const serverPid = natsServersIn(nats.home.dir)[0];
    await feed(admin, tool, 300); // warm up
    const self0 = process.cpuUsage();
    const nats0 = cpuSeconds(serverPid);
    const t0 = performance.now();
    await feed(admin, tool, CALLS);
    const seconds = (performance.now() - t0) / 1000;
    const self = process.cpuUsage(self0);
    const natsSeconds = cpuSeconds(serverPid) - nats0;
    await policy.stop();
    return { selfUs: (self.user + self.system) / CALLS, natsUs: (natsSeconds * 1e6) / CALLS, perSecond: CALLS / seconds };
  } finally {
    await nats.stop();
  }
}

const rows: [string, Awaited<ReturnType<typeof round>>][] = [];
for (const [label, doc] of [
  ["without history rules", BASE],
  ["with two history rules", HISTORY],
  ["without history rules (again)", BASE],
  ["with two history rules (again)", HISTORY],
] as const) {
  rows.push([label, await round(doc)]);
}
process.stdout.write(`policy decisions, ${CALLS} calls per round, ${IN_FLIGHT} in flight; µs of CPU per decision\n`);
for (const [label, r] of rows) {
  process.stdout.write(`${label.padEnd(32)} policy+feeder ${r.selfUs.toFixed(0).padStart(5)} µs  nats-server ${r.natsUs.toFixed(0).padStart(5)} µs  ${r.perSecond.toFixed(0).padStart(6)} decisions/s\n`);
}
