/**
 * Runs work one at a time per key in this process, so a read-decide-write of one key (a run's
 * budget, a rate bucket, a requester's open approvals) never interleaves with another of its own.
 */
export interface Turns {
  run<T>(key: string, work: () => Promise<T>): Promise<T>;
}

export function createTurns(): Turns {
  const queues = new Map<string, Promise<unknown>>();
  return {
    run(key, work) {
      const previous = queues.get(key) ?? Promise.resolve();
      // the previous turn's failure is its caller's; this turn only waits for it to settle
      const turn = Promise.allSettled([previous]).then(work);
      queues.set(key, turn);
      return turn.finally(() => {
        if (queues.get(key) === turn) queues.delete(key);
      });
    },
  };
}
