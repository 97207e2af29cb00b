import { decodeJson, followCallStream, readEvent, type Bus, type Logger } from "@warden/bus";
import { validateEventJson, type ApprovalGranted, type SessionGrantRevoked } from "@warden/contracts/events";
import { stageFilterSubject, subjectOfEvent } from "@warden/contracts/subjects";
import { MAX_SESSION_GRANT_SECONDS } from "@warden/contracts/policy";

/** Reads the stream for grants made by other copies this often even when none was heard of. */
const POLL_MS = 1_000;

/** A grant that made a session grant (`data.session` set): the session grant's id is its callId. */
export type SessionGrantEvent = ApprovalGranted & { readonly data: ApprovalGranted["data"] & { readonly session: NonNullable<ApprovalGranted["data"]["session"]> } };

/**
 * The session grants in force, as the stream holds them: direct gets read the
 * ApprovalGranted events of the last MAX_SESSION_GRANT_SECONDS (no session grant lasts longer)
 * and keeps those that made a session grant and have not expired. A revoke is read from the
 * stream each time a grant is about to be used (`revocationOf`), so a revoke by another copy of the
 * approver counts at once.
 */
export interface SessionGrants {
  /** Unexpired session grants for this domain and tool, oldest first. */
  candidates(domain: string, tool: string, now: Date): SessionGrantEvent[];
  /** Every unexpired session grant, oldest first. */
  all(now: Date): SessionGrantEvent[];
  /** The session grant made on this call, if it is held (expired ones are not). */
  get(domain: string, grantId: string): SessionGrantEvent | undefined;
  /** Held at once by the process that made it, before the consumer brings it back. */
  add(grant: ApprovalGranted): void;
  /** The revoke of a session grant, when the stream holds one. */
  revocationOf(domain: string, grantId: string): Promise<SessionGrantRevoked | undefined>;
  stop(): Promise<void>;
}

export function isSessionGrant(grant: ApprovalGranted): grant is SessionGrantEvent {
  return grant.data.session !== undefined;
}

/**
 * `verify`: whether a grant on the stream was signed by this approver's key. A session grant that
 * is not is never held: write access to the stream must not become signed grants.
 */
export async function openSessionGrants(bus: Bus, log: Logger, verify: (grant: SessionGrantEvent) => boolean): Promise<SessionGrants> {
  const held = new Map<string, SessionGrantEvent>();
  const keyOf = (domain: string, callId: string) => `${domain}.${callId}`;
  const live = (g: SessionGrantEvent, now: Date) => Date.parse(g.data.session.expiresAt) > now.getTime();
  const prune = (now: Date) => {
    for (const [k, g] of held) if (!live(g, now)) held.delete(k);
  };
  const add = (grant: ApprovalGranted) => {
    if (!isSessionGrant(grant) || !live(grant, new Date())) return;
    if (!verify(grant)) {
      log.warn({ callId: grant.callId, keyId: grant.data.keyId }, "session grant not signed by this approver's key ignored");
      return;
    }
    held.set(keyOf(grant.domain, grant.callId), grant);
  };

  const since = new Date(Date.now() - MAX_SESSION_GRANT_SECONDS * 1000);
  const granted = stageFilterSubject("ApprovalGranted");
  // direct gets, woken by the grants heard on the bus (what is read is what the stream holds)
  const follower = followCallStream(bus, { filter: granted, since, pollMs: POLL_MS, wakeOn: granted, log }, (m) => {
    const decoded = decodeJson(m.data);
    const parsed = decoded.ok ? validateEventJson(decoded.value) : undefined;
    if (!parsed?.ok || parsed.value.type !== "ApprovalGranted" || subjectOfEvent(parsed.value) !== m.subject) {
      log.warn({ seq: m.seq, subject: m.subject }, "unreadable grant on the stream ignored by the session index");
      return;
    }
    add(parsed.value);
  });

  const sorted = (list: SessionGrantEvent[]) => list.sort((a, b) => a.data.grantedAt.localeCompare(b.data.grantedAt) || a.callId.localeCompare(b.callId));
  return {
    candidates(domain, tool, now) {
      prune(now);
      return sorted([...held.values()].filter((g) => g.domain === domain && g.tool === tool));
    },
    all(now) {
      prune(now);
      return sorted([...held.values()]);
    },
    get: (domain, grantId) => held.get(keyOf(domain, grantId)),
    add,
    revocationOf: (domain, grantId) => readEvent(bus, domain, grantId, "SessionGrantRevoked"),
    stop: () => follower.stop(),
  };
}
