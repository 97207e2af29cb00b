import { encodeJson, type Bus, type Logger } from "@warden/bus";
import { type ApprovalRequested } from "@warden/contracts/events";
import { approverNotifySubject } from "@warden/contracts/subjects";
import { type PolicyDocument } from "@warden/contracts/policy";
import { whoMayDecide } from "./domain/who-may-decide.js";

/**
 * Tells each person the document lets decide a new request of it, on their own subject
 * (`warden.approver.notify.<person>.<approvalId>`), the request as the stream holds it. Plain
 * NATS: a cue for an app that is watching, lost when none is; the inbox and durable deliveries
 * are the record. Nobody else hears of it: the clients account sees no call-stream subject.
 */
export function notifyApprovers(bus: Bus, doc: PolicyDocument, requested: ApprovalRequested, log: Logger): string[] {
  const people = whoMayDecide(doc, requested);
  const data = encodeJson(requested);
  for (const person of people) bus.nc.publish(approverNotifySubject(person, requested.data.approvalId), data);
  log.debug({ approvalId: requested.data.approvalId, notified: people.length }, "approvers notified");
  return people;
}
