import { isPermissionViolation, type Bus } from "@warden/bus";
import { SUBJECT_REGISTRY_CHANGED } from "@warden/contracts/subjects";
import { wardenError, type Outcome, type WardenError } from "@warden/contracts/errors";
import { canonicalJson, sha256Hex } from "@warden/contracts/json";
import type { ToolViewResult } from "./tool-view-result.js";

/** Options of {@link AgentClient.watchToolView}. */
export interface ToolViewWatchOptions {
  /**
   * How often the view is read again whatever is announced: announcements travel at most once, and
   * credentials minted before they existed may not subscribe to them (then this is the only way).
   * @default 30_000
   */
  readonly pollMs?: number;
  /**
   * Announcements closer together than this lead to one read.
   * @default 100
   */
  readonly settleMs?: number;
  /** A read of the view that failed (the view stays what it was); the watch goes on. */
  readonly onError?: (error: WardenError) => void;
}

/** What {@link AgentClient.watchToolView} returns. */
export interface ToolViewWatch {
  /** The view as last read; undefined until the first read answered. */
  current(): ToolViewResult | undefined;
  /** Resolves once the first read has answered (its outcome: the watch goes on after a failure too). */
  readonly ready: Promise<Outcome<ToolViewResult>>;
  /** Reads the view now; resolves true when it differed from the last one (and the listener was told). */
  refresh(): Promise<boolean>;
  stop(): void;
}

/** What tells two views apart: the tools as rendered (names, schemas, hints) and the policy version. */
export function viewFingerprint(v: ToolViewResult): string {
  return sha256Hex(canonicalJson({ policyVersion: v.view.policyVersion, formatted: v.formatted }));
}

/**
 * Follows a caller's view: reads it, then again after each `warden.registry.changed` and every
 * `pollMs`, and calls `onChange` when it differs from the last one (not on the first read).
 */
export function watchToolViewOn(
  bus: Bus,
  read: () => Promise<Outcome<ToolViewResult>>,
  onChange: (view: ToolViewResult) => void,
  opts: ToolViewWatchOptions = {},
): ToolViewWatch {
  const pollMs = opts.pollMs ?? 30_000;
  const settleMs = opts.settleMs ?? 100;
  let last: ToolViewResult | undefined;
  let lastPrint: string | undefined;
  let stopped = false;
  let settleTimer: NodeJS.Timeout | undefined;
  // one read at a time; a change announced during a read asks for one more
  let reading: Promise<boolean> | undefined;
  let again = false;

  const readOnce = async (): Promise<boolean> => {
    const outcome = await read();
    if (stopped) return false;
    if (!outcome.ok) {
      opts.onError?.(outcome.error);
      return false;
    }
    const print = viewFingerprint(outcome.value);
    const first = lastPrint === undefined;
    const differs = print !== lastPrint;
    last = outcome.value;
    lastPrint = print;
    if (differs && !first) onChange(outcome.value);
    return differs && !first;
  };
  const refresh = (): Promise<boolean> => {
    if (reading !== undefined) {
      again = true;
      return reading;
    }
    reading = (async () => {
      let changed = false;
      do {
        again = false;
        changed = (await readOnce()) || changed;
      } while (again && !stopped);
      return changed;
    })().finally(() => (reading = undefined));
    return reading;
  };

  const ready = read().then((outcome) => {
    if (outcome.ok && lastPrint === undefined && !stopped) {
      last = outcome.value;
      lastPrint = viewFingerprint(outcome.value);
    }
    if (!outcome.ok) opts.onError?.(outcome.error);
    return outcome;
  });

  let sub: ReturnType<Bus["nc"]["subscribe"]> | undefined;
  try {
    sub = bus.nc.subscribe(SUBJECT_REGISTRY_CHANGED, {
      callback: () => {
        if (stopped) return;
        settleTimer ??= setTimeout(() => {
          settleTimer = undefined;
          void refresh();
        }, settleMs);
      },
    });
    // a refused subscription closes with the server's permissions violation: the poll carries on alone
    void sub.closed.then((err) => {
      if (err instanceof Error && !isPermissionViolation(err) && !stopped) opts.onError?.(wardenError("UNAVAILABLE", `registry announcements ended: ${err.message}`));
    });
  } catch {
    sub = undefined;
  }
  const poll = setInterval(() => void refresh(), pollMs);
  poll.unref();

  return {
    current: () => last,
    ready,
    refresh,
    stop() {
      stopped = true;
      clearInterval(poll);
      if (settleTimer !== undefined) clearTimeout(settleTimer);
      try {
        sub?.unsubscribe();
      } catch {
        // the connection is already closed
      }
    },
  };
}
