import { randomBytes } from "node:crypto";
import { matchesSecret, secretDigest } from "@warden/contracts/json";

/** A session ends after this long without a request, unless the inbox is told otherwise. */
export const DEFAULT_SESSION_IDLE_MS = 12 * 60 * 60 * 1000;

/** What a URL token is now: not used yet, already traded for a session, or not this run's. */
export type UrlTokenState = "fresh" | "used" | "wrong";

/** What a session cookie names: a live session, one that timed out, or nothing of this run. */
export type SessionState = "live" | "expired" | "unknown";

/**
 * The inbox's sessions: the printed URL's token opens one session, once; the session (its id is
 * the cookie) ends after `idleMs` without a request. A URL that leaked after it was opened (shell
 * history, a screenshot) opens nothing.
 */
export interface InboxSessions {
  readonly idleMs: number;
  urlToken(given: string | undefined): UrlTokenState;
  /** Trades the fresh URL token for a new session's id; undefined when it is used or wrong. */
  redeem(given: string): string | undefined;
  /** The state of the session `id` names; a live one's idle time starts again (a request). */
  touch(id: string | undefined): SessionState;
  /** The state of the session `id` names, leaving its idle time as it is. */
  state(id: string | undefined): SessionState;
}

export interface InboxSessionsOptions {
  /** The printed URL's secret. */
  readonly token: string;
  /** @default 12 h */
  readonly idleMs?: number;
  /** @default Date.now */
  readonly now?: () => number;
}


export function createInboxSessions(opts: InboxSessionsOptions): InboxSessions {
  const idleMs = opts.idleMs ?? DEFAULT_SESSION_IDLE_MS;
  const now = opts.now ?? Date.now;
  const token = secretDigest(opts.token);
  let tokenUsed = false;
  // one URL token opens at most one session, so there is at most one
  let session: { id: Buffer; lastSeen: number } | undefined;
  const stateOf = (id: string | undefined): SessionState => {
    if (session === undefined || !matchesSecret(id, session.id)) return "unknown";
    return now() - session.lastSeen >= idleMs ? "expired" : "live";
  };

  return {
    idleMs,
    urlToken(given) {
      if (!matchesSecret(given, token)) return "wrong";
      return tokenUsed ? "used" : "fresh";
    },
    redeem(given) {
      if (tokenUsed || !matchesSecret(given, token)) return undefined;
      tokenUsed = true;
      const id = randomBytes(32).toString("base64url");
      session = { id: secretDigest(id), lastSeen: now() };
      return id;
    },
    touch(id) {
      const state = stateOf(id);
      if (state === "live" && session !== undefined) session.lastSeen = now();
      return state;
    },
    state: stateOf,
  };
}
