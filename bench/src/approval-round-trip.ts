import type { Bus } from "@warden/bus";
import { createAgentClient, createApproverClient, type ApproverClient } from "@warden/sdk";
import { summarize } from "./stats.js";

export interface ApprovalRoundTripOptions {
  /** The agent's own connection (clients account) and principal. */
  readonly agentBus: Bus;
  readonly agent: string;
  /** The deciding person's own connection and name (a human the policy lets approve the tool's grade). */
  readonly personBus: Bus;
  readonly person: string;
  /** A tool the policy sends to approval for this agent in llm mode. */
  readonly tool: string;
  readonly samples: number;
}

/**
 * A person approves a held call and the agent, already waiting on it with `awaitCall`, sees the
 * result: timed from the moment `approve()` is sent until the agent's wait resolves. One approval
 * at a time, each with its own call, so the number is a latency, not a queue.
 */
export async function approvalRoundTrip(o: ApprovalRoundTripOptions) {
  const agent = createAgentClient({ bus: o.agentBus, principal: o.agent, mode: "llm", timeoutMs: 10_000 });
  const person = createApproverClient({ bus: o.personBus, approver: o.person });
  const roundTrips: number[] = [];
  const decisions: number[] = [];
  // a --compare copy from before the SDK could wait on a call it made earlier cannot time this
  if (typeof (agent as Partial<typeof agent>).awaitCall !== "function") {
    await agent.close();
    return { ...summarize([]), decision: summarize([]), failed: 0, firstFailure: "this build's SDK has no awaitCall: not measured" };
  }
  let failed = 0;
  let firstFailure: string | undefined;
  const fail = (why: string) => {
    failed++;
    firstFailure ??= why;
  };
  for (let n = 0; n < o.samples; n++) {
    const asked = await agent.call(o.tool, { n });
    if (asked.status !== "awaiting_approval" || asked.approvalId === undefined) {
      fail(`call ended ${asked.status}${asked.error ? ` (${asked.error.code})` : ""}, not awaiting approval`);
      continue;
    }
    // the agent waits first, as it would; the person then reads the inbox, as a person does
    const result = agent.awaitCall(asked.callId, o.tool, { timeoutMs: 10_000 });
    const item = await pendingItem(person, asked.approvalId);
    if (item === undefined) {
      fail("the approval never showed in the person's inbox");
      await result;
      continue;
    }
    const t0 = performance.now();
    const decided = person.approve(item.approvalId, item.argsHash).then((d) => {
      decisions.push(performance.now() - t0);
      return d;
    });
    const r = await result;
    const seen = performance.now() - t0;
    const d = await decided;
    if (d.ok && r.ok) roundTrips.push(seen);
    else fail(d.ok ? `call ended ${r.status}` : `approve refused: ${d.refusal}`);
  }
  await agent.close();
  return { ...summarize(roundTrips), decision: summarize(decisions), failed, firstFailure };
}

async function pendingItem(person: ApproverClient, approvalId: string) {
  const deadline = performance.now() + 5_000;
  while (performance.now() < deadline) {
    const inbox = await person.pending();
    const item = inbox.ok ? inbox.value.find((p) => p.approvalId === approvalId) : undefined;
    if (item !== undefined) return item;
    await new Promise((r) => setTimeout(r, 5));
  }
  return undefined;
}
