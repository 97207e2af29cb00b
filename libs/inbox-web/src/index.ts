export { createInboxSessions, DEFAULT_SESSION_IDLE_MS, type InboxSessions, type InboxSessionsOptions, type SessionState, type UrlTokenState } from "./domain/inbox-sessions.js";
export { CSRF_HEADER, guardRequest, type GuardedRequest, type GuardSecrets, type GuardVerdict } from "./domain/request-guard.js";
export { approverActions, InboxActionSchema, type ActionDone, type InboxAction, type InboxActions, type InboxActionSpec } from "./inbox-actions.js";
export { startInboxFeed, type HistoryEntry, type InboxFeed, type InboxFeedOptions, type InboxSnapshot } from "./inbox-feed.js";
export { startInboxServer, type InboxServer, type InboxServerOptions } from "./inbox-server.js";
export { ownCallsReader, type OwnCallsReader } from "./own-calls-client.js";
