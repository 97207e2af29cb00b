import { afterAll, beforeAll } from "vitest";
import { readAfterBeforeAll } from "./read-after-before-all.js";
import { startTestWarden, type TestWarden, type TestWardenOptions } from "./warden.js";

/** A file's Warden `w` and what its `setUp` made, read inside a test. */
export type UsedTestWarden<C extends object> = { readonly w: TestWarden } & Readonly<C>;

/**
 * A file's Warden, started before its tests and stopped after them; `setUp` then starts what the
 * tests share (executors, clients) and returns what they use. Read it inside a test: before the
 * file's `beforeAll` has run nothing is there yet, and reading it says so.
 */
export function useTestWarden<C extends object = object>(options: TestWardenOptions, setUp?: (w: TestWarden) => Promise<C | void>): UsedTestWarden<C> {
  let w: TestWarden | undefined;
  let started: UsedTestWarden<C> | undefined;
  beforeAll(async () => {
    w = await startTestWarden(options);
    started = { ...((await setUp?.(w)) ?? ({} as C)), w };
  });
  afterAll(async () => w?.stop());
  return readAfterBeforeAll("useTestWarden", () => started);
}
