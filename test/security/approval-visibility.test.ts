import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Msg, Subscription } from "@nats-io/transport-node";
import { type ApprovalRequested } from "@warden/contracts/events";
import {
  approverNotifyFilter,
  approverNotifySubject,
  inboxPrefixOf,
  stageFilterSubject,
  SUBJECT_REGISTRY_CHANGED,
} from "@warden/contracts/subjects";
import { permissionsOf } from "@warden/contracts/permissions";
import type { Bus } from "@warden/bus";
import { createApproverClient } from "@warden/sdk";
import { eventually } from "@warden/testing";
import { startTestWarden, type TestWarden } from "../support/warden.js";
import { subscriptionRefused } from "./refusals.js";

/**
 * Issue 25: every person received every pending approval's args, people who may decide none of
 * them included, through `warden.call.*.*.ApprovalRequested` exported to the clients account. Now
 * the approver tells only the people the policy document lets decide a request, each on their own
 * subject, and the clients account sees no call-stream subject at all.
 */
describe("a person receives only the approvals they may decide", () => {
  let w: TestWarden;
  let aliceBus: Bus;
  let bobBus: Bus;
  /** Everything bob's subscriptions received: each subject his permissions let him subscribe to. */
  const bobGot: Msg[] = [];
  const bobSubs: Subscription[] = [];
  const secret = `refund-${Date.now()}-only-alice-may-see`;

  beforeAll(async () => {
    w = await startTestWarden({
      demo: true,
      policy: {
        version: "visibility",
        // only alice may decide a send; bob decides writes, so he is an approver, just not of this
        principals: { alice: { kind: "human", approves: ["send"] }, bob: { kind: "human", approves: ["write"] }, planner: { kind: "agent" } },
        approvalTtlSeconds: { write: 3600, send: 3600 },
      },
    });
    aliceBus = await w.humanBus("alice");
    bobBus = await w.humanBus("bob");
    // bob subscribes to every subject his credentials allow (his inbox, his own notices, the registry's change cue)
    for (const subject of permissionsOf({ kind: "human", name: "bob" }).sub.allow) {
      const sub = bobBus.nc.subscribe(subject, {
        callback: (err, m) => {
          if (!err) bobGot.push(m);
        },
      });
      bobSubs.push(sub);
    }
    await bobBus.nc.flush();
  });
  afterAll(async () => {
    for (const s of bobSubs) s.unsubscribe();
    await w.stop();
  });

  it("refuses bob, by the server, every subject that carried other people's approvals, and lets him subscribe only to his own", async () => {
    // the old way in: the call stream's requests, once exported to every person as a stream
    expect(await subscriptionRefused(bobBus, stageFilterSubject("ApprovalRequested")), "the old ApprovalRequested subject").toBe(true);
    for (const subject of ["warden.call.>", approverNotifyFilter("alice"), "warden.approver.notify.*.*", "warden.approver.notify.>", ">"]) {
      expect(await subscriptionRefused(bobBus, subject), subject).toBe(true);
    }
    expect(permissionsOf({ kind: "human", name: "bob" }).sub.allow).toEqual([`${inboxPrefixOf("bob")}.>`, approverNotifyFilter("bob"), SUBJECT_REGISTRY_CHANGED]);
    expect(bobSubs.every((s) => !s.isClosed())).toBe(true);
  });

  it("tells alice, who may decide the send, and nothing of it reaches bob: not the notice, not his inbox, not his deliveries", async () => {
    // the control: the request is on the call stream, args and all, as every person once received it
    const onStream: ApprovalRequested[] = [];
    const admin = w.bus.nc.subscribe(stageFilterSubject("ApprovalRequested"), {
      callback: (err, m) => {
        if (!err) onStream.push(m.json<ApprovalRequested>());
      },
    });
    const aliceWatch = createApproverClient({ bus: aliceBus, approver: "alice" }).watch();
    const aliceNext = aliceWatch[Symbol.asyncIterator]().next();
    await Promise.all([w.bus.nc.flush(), aliceBus.nc.flush()]);

    const planner = await w.agent("planner");
    const r = await planner.call("customer.message", { customerId: "C-vis", text: secret }, { mode: "plan" });
    expect(r.status).toBe("awaiting_approval");

    const told = await aliceNext;
    expect(told.value).toMatchObject({ type: "ApprovalRequested", data: { approvalId: r.approvalId, args: { text: secret } } });
    await eventually(() => expect(onStream.map((e) => e.data.approvalId)).toContain(r.approvalId));

    const bob = createApproverClient({ bus: bobBus, approver: "bob" });
    expect(await bob.pending()).toEqual({ ok: true, value: [] });
    const delivered = bob.watch({ durable: "vis" });
    const first = delivered[Symbol.asyncIterator]().next();
    const none = await Promise.race([first.then(() => "delivered"), new Promise((res) => setTimeout(() => res("nothing"), 1_500))]);
    delivered.stop();
    expect(none).toBe("nothing");

    // alice's own inbox lists it; a notice for bob would have been sent by now (alice's came first)
    expect((await createApproverClient({ bus: aliceBus, approver: "alice" }).pending()).ok).toBe(true);
    await bobBus.nc.flush();
    const seen = bobGot.map((m) => `${m.subject} ${m.string()}`);
    expect(seen.filter((s) => s.includes(secret) || s.includes(r.approvalId!))).toEqual([]);
    expect(seen.filter((s) => s.startsWith(approverNotifySubject("bob", r.approvalId!)))).toEqual([]);
    aliceWatch.stop();
    admin.unsubscribe();
  });
});
