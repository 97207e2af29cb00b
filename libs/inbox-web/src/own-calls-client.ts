import { requestRpc, type Bus } from "@warden/bus";
import { OwnCallListSchema, OwnCallTraceSchema, type OwnCallList } from "@warden/contracts/events";
import { approverPendingSubject, ownCallsSubject } from "@warden/contracts/subjects";
import { fail, ok, type Outcome } from "@warden/contracts/errors";
import { validateJson } from "@warden/contracts/json";
import { buildTrace, type CallTrace } from "@warden/projections";

/** What the Calls page reads: the person's own calls, and one call's timeline. */
export interface OwnCallsReader {
  /** The person the reads are made as (the inbox's credentials). */
  readonly person: string;
  list(limit?: number): Promise<Outcome<OwnCallList>>;
  trace(callId: string): Promise<Outcome<CallTrace>>;
  /**
   * The timeline of a call this person decided or may decide (another principal's, say), through
   * the approver service (`warden.approver.pending.<person>`, list `trace`): NOT_FOUND for any other.
   */
  traceDecided(callId: string): Promise<Outcome<CallTrace>>;
}

const READ_TIMEOUT_MS = 10_000;

/**
 * Reads through the registry's `warden.registry.calls.<person>`, on the inbox's own connection:
 * the server lets these credentials ask only as their person, and the registry answers only that
 * person's calls, so the page can show nothing its person could not read.
 */
export function ownCallsReader(bus: Bus, person: string): OwnCallsReader {
  const subject = ownCallsSubject(person);
  return {
    person,
    async list(limit) {
      const r = await requestRpc(bus, subject, { kind: "list", ...(limit === undefined ? {} : { limit }) }, READ_TIMEOUT_MS);
      if (!r.ok) return r;
      const list = validateJson(OwnCallListSchema, r.value);
      return list.ok ? ok(list.value) : fail("INTERNAL", `the registry's list of ${person}'s calls is not one: ${list.reason}`);
    },
    async trace(callId) {
      return traceOf(callId, "registry", await requestRpc(bus, subject, { kind: "trace", callId }, READ_TIMEOUT_MS));
    },
    async traceDecided(callId) {
      return traceOf(callId, "approver", await requestRpc(bus, approverPendingSubject(person), { list: "trace", callId }, READ_TIMEOUT_MS));
    },
  };
}

function traceOf(callId: string, service: string, r: Outcome<unknown>): Outcome<CallTrace> {
  if (!r.ok) return r;
  const read = validateJson(OwnCallTraceSchema, r.value);
  if (!read.ok) return fail("INTERNAL", `the ${service}'s trace of call ${callId} is not one: ${read.reason}`);
  const trace = buildTrace(read.value.entries);
  return trace === undefined ? fail("NOT_FOUND", `no events of call ${callId}`) : ok(trace);
}
