import type { JsMsg } from "./nats-types.js";

export interface BoundedPullLoop {
  /** Settles when the pull ends; rejects if the loop itself failed. */
  readonly done: Promise<void>;
  /** Stops taking messages (later ones are handed back), closes the pull, waits for those in flight. */
  stop(): Promise<void>;
}

export interface BoundedPullOptions {
  readonly messages: AsyncIterable<JsMsg> & { close(): Promise<void | Error> };
  /** Messages processed at once. */
  readonly concurrency: number;
  readonly process: (m: JsMsg) => Promise<void>;
  /** Called when `process` rejects (a bug): the message must still be settled. */
  readonly onFailure: (m: JsMsg, err: unknown) => void;
}

/** Takes pulled messages one by one, with at most `concurrency` in flight. */
export function runBoundedPullLoop(o: BoundedPullOptions): BoundedPullLoop {
  const inFlight = new Set<Promise<void>>();
  let slotFree: (() => void) | undefined;
  let stopped = false;
  const done = (async () => {
    for await (const m of o.messages) {
      if (stopped) {
        m.nak();
        continue;
      }
      while (inFlight.size >= o.concurrency) {
        await new Promise<void>((resolve) => (slotFree = resolve));
      }
      const p = o
        .process(m)
        .catch((err: unknown) => o.onFailure(m, err))
        .finally(() => {
          inFlight.delete(p);
          const free = slotFree;
          slotFree = undefined;
          free?.();
        });
      inFlight.add(p);
    }
  })();
  return {
    done,
    async stop() {
      stopped = true;
      await o.messages.close();
      // the loop's own failure is reported to whoever awaits `done`
      await Promise.allSettled([done]);
      await Promise.allSettled([...inFlight]);
    },
  };
}
