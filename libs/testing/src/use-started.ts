import { afterAll, beforeAll } from "vitest";

/**
 * What `start` makes, for the `describe` block this is called in: started before its tests (and
 * before the hooks the block declares after this call), handed to `stop` after them. The returned
 * object reads through to it, so read its fields inside tests and hooks, not while the block is
 * declared; `fixture` names the fixture in the error a too-early read gets.
 */
export function useStarted<T extends object>(fixture: string, start: () => Promise<T>, stop: (started: T) => Promise<void>): T {
  let started: T | undefined;
  beforeAll(async () => {
    started = await start();
  });
  afterAll(async () => {
    if (started !== undefined) await stop(started);
  });
  return new Proxy({} as T, {
    get(_, field) {
      if (started === undefined) throw new Error(`${fixture}: read ${String(field)} inside a test or hook, after beforeAll`);
      return Reflect.get(started, field);
    },
  });
}
