import { useStarted } from "@warden/testing";
import { startTestWarden, type TestWarden, type TestWardenOptions } from "./warden.js";

/** A file's Warden `w` and what its `setUp` made, read inside a test. */
export type UsedTestWarden<C extends object> = { readonly w: TestWarden } & Readonly<C>;

/**
 * A file's Warden, started before its tests and stopped after them; `setUp` then starts what the
 * tests share (executors, clients) and returns what they use. Read it inside a test: before the
 * file's `beforeAll` has run nothing is there yet, and reading it says so.
 */
export function useTestWarden<C extends object = object>(options: TestWardenOptions, setUp?: (w: TestWarden) => Promise<C | void>): UsedTestWarden<C> {
  return useStarted(
    "useTestWarden",
    async () => {
      const w = await startTestWarden(options);
      return { ...(await setUpOrStop(w, setUp)), w };
    },
    (started) => started.w.stop(),
  );
}

/** What `setUp` made of a started `harness`; a failed set-up stops the harness before it fails the file (its afterAll has nothing to stop). */
export async function setUpOrStop<H extends { stop(): Promise<void> }, C extends object>(harness: H, setUp: ((h: H) => Promise<C | void>) | undefined): Promise<C> {
  try {
    return (await setUp?.(harness)) ?? ({} as C);
  } catch (err) {
    await harness.stop();
    throw err;
  }
}
