import { silentLogger, type Logger } from "@warden/bus";
import type { WardenError } from "@warden/contracts/errors";
import type { DecidedApproval, PendingApproval, SessionGrantView } from "@warden/contracts/approval";
import type { ApproverClient } from "@warden/sdk";

/** One line of the decided list. */
export interface HistoryEntry {
  readonly approvalId: string;
  readonly callId: string;
  readonly tool: string;
  readonly title: string;
  readonly principal: string;
  readonly argsPreview: string;
  /**
   * `granted` / `denied`: this person decided it (here, or anywhere as the approver recorded it); `expired`: it left the inbox past its
   * expiry; `gone`: it left the inbox undecided by this page (another approver decided it, or the
   * call was cancelled).
   */
  readonly outcome: "granted" | "denied" | "expired" | "gone";
  /** Who decided, when this page knows (the person the inbox acts as). */
  readonly by: string | null;
  readonly reason: string | null;
  readonly at: string;
}

/** What the page shows, pushed whole on every change (it is small: one person's inbox). */
export interface InboxSnapshot {
  readonly person: string;
  readonly pending: readonly PendingApproval[];
  readonly history: readonly HistoryEntry[];
  /** The session grants in force that this person made (an operator: all), oldest first. */
  readonly sessions: readonly SessionGrantView[];
  /** The last refresh: fine, or why the inbox may be stale (the page shows a banner). */
  readonly status: { readonly ok: true; readonly refreshedAt: string } | { readonly ok: false; readonly error: WardenError; readonly since: string };
}

export interface InboxFeedOptions {
  /** With `decided`, the Decided list starts with (and learns of) what this person decided anywhere, across restarts. */
  readonly client: Pick<ApproverClient, "approver" | "pending" | "watch" | "sessions"> & Partial<Pick<ApproverClient, "decided">>;
  /** How often `pending()` is read besides the watch's cues (catches decisions elsewhere and expiries). @default 3_000 */
  readonly refreshMs?: number;
  /** @default 50 */
  readonly historyLimit?: number;
  readonly log?: Logger;
  readonly now?: () => Date;
}

export interface InboxFeed {
  snapshot(): InboxSnapshot;
  /** Calls `listener` after every change; returns the unsubscribe. */
  onChange(listener: (s: InboxSnapshot) => void): () => void;
  /** Reads `pending()` now (coalesced: a refresh asked for during one runs once after it). */
  refresh(): Promise<void>;
  /** Records this person's own decision and drops the card at once. */
  decided(approvalId: string, decision: "grant" | "deny", reason: string | null): void;
  stop(): Promise<void>;
}

/**
 * One person's inbox kept current: `pending()` read at start, on every new approval request the
 * watch is told of (the approver's notice to this person, sent only for requests they may
 * decide), and every `refreshMs`. A card that leaves the list
 * without a decision made here goes to the history as expired or gone.
 */
export function startInboxFeed(opts: InboxFeedOptions): InboxFeed {
  const { client } = opts;
  const log = opts.log ?? silentLogger();
  const now = opts.now ?? (() => new Date());
  const historyLimit = opts.historyLimit ?? 50;
  const listeners = new Set<(s: InboxSnapshot) => void>();
  let pending: PendingApproval[] = [];
  let history: HistoryEntry[] = [];
  let sessions: SessionGrantView[] = [];
  let status: InboxSnapshot["status"] = { ok: true, refreshedAt: now().toISOString() };
  const decidedHere = new Set<string>();
  let stopped = false;

  const snapshot = (): InboxSnapshot => ({ person: client.approver, pending, history, sessions, status });
  let lastShown = "";
  // a refresh that found nothing new pushes nothing (the page is told only of changes)
  const changed = () => {
    const s = snapshot();
    const shown = JSON.stringify([s.pending, s.history, s.sessions, s.status.ok ? true : s.status.error]);
    if (shown === lastShown) return;
    lastShown = shown;
    for (const l of listeners) l(s);
  };
  const remember = (entry: HistoryEntry) => {
    history = [entry, ...history.filter((h) => h.approvalId !== entry.approvalId)].slice(0, historyLimit);
  };
  const entryOf = (card: PendingApproval, rest: Pick<HistoryEntry, "outcome" | "by" | "reason" | "at">): HistoryEntry => ({
    approvalId: card.approvalId,
    callId: card.callId,
    tool: card.tool,
    title: card.title,
    principal: card.principal,
    argsPreview: card.argsPreview,
    ...rest,
  });

  /** What the approver recorded this person decided: added, or put in place of a card seen to leave undecided. */
  const learnDecided = (list: readonly DecidedApproval[]) => {
    let learnt = false;
    for (const x of list) {
      const known = history.find((h) => h.approvalId === x.approvalId);
      if (known !== undefined && known.outcome !== "gone") continue;
      history = [
        { approvalId: x.approvalId, callId: x.callId, tool: x.tool, title: x.title, principal: x.principal, argsPreview: x.argsPreview, outcome: x.outcome, by: x.decidedBy, reason: x.reason, at: x.decidedAt },
        ...history.filter((h) => h.approvalId !== x.approvalId),
      ];
      learnt = true;
    }
    if (learnt) history = [...history].sort((a, b) => b.at.localeCompare(a.at)).slice(0, historyLimit);
  };

  async function readOnce(): Promise<void> {
    const [r, s, d] = await Promise.all([client.pending(), client.sessions(), client.decided?.()]);
    if (stopped) return;
    if (d !== undefined && !d.ok) log.warn({ err: d.error }, "decided approvals refresh failed");
    // session grants are a side list: one that cannot be read keeps the last known
    if (s.ok) sessions = s.value;
    else log.warn({ err: s.error }, "session grants refresh failed");
    const at = now();
    if (!r.ok) {
      if (status.ok) log.warn({ err: r.error }, "inbox refresh failed");
      status = { ok: false, error: r.error, since: status.ok ? at.toISOString() : status.since };
      if (d?.ok) learnDecided(d.value);
      changed();
      return;
    }
    const fresh = new Map(r.value.map((p) => [p.approvalId, p]));
    for (const old of pending) {
      if (fresh.has(old.approvalId) || decidedHere.has(old.approvalId)) continue;
      const expired = Date.parse(old.expiresAt) <= at.getTime();
      remember(entryOf(old, { outcome: expired ? "expired" : "gone", by: null, reason: null, at: at.toISOString() }));
    }
    // after the cards that left: one this person decided elsewhere is named as theirs, not as gone
    if (d?.ok) learnDecided(d.value);
    // a card decided here may still be listed by a refresh that raced the decision
    pending = r.value.filter((p) => !decidedHere.has(p.approvalId)).sort((a, b) => a.requestedAt.localeCompare(b.requestedAt));
    status = { ok: true, refreshedAt: at.toISOString() };
    changed();
  }

  let running: Promise<void> | undefined;
  let again = false;
  function refresh(): Promise<void> {
    if (stopped) return Promise.resolve();
    if (running !== undefined) {
      again = true;
      return running;
    }
    running = (async () => {
      try {
        do {
          again = false;
          await readOnce();
        } while (again && !stopped);
      } catch (err) {
        log.error({ err }, "inbox refresh threw");
      } finally {
        running = undefined;
      }
    })();
    return running;
  }

  const watch = client.watch();
  const watching = (async () => {
    try {
      for await (const req of watch) {
        log.debug({ approvalId: req.data.approvalId }, "approval requested");
        void refresh();
      }
    } catch (err) {
      if (!stopped) log.warn({ err }, "approval watch ended");
    }
  })();
  const timer = setInterval(() => void refresh(), opts.refreshMs ?? 3_000);
  timer.unref();
  void refresh();

  return {
    snapshot,
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    refresh,
    decided(approvalId, decision, reason) {
      decidedHere.add(approvalId);
      const card = pending.find((p) => p.approvalId === approvalId);
      pending = pending.filter((p) => p.approvalId !== approvalId);
      if (card !== undefined) {
        remember(entryOf(card, { outcome: decision === "grant" ? "granted" : "denied", by: client.approver, reason, at: now().toISOString() }));
      }
      changed();
      void refresh();
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      watch.stop();
      await watching;
      await running;
    },
  };
}
