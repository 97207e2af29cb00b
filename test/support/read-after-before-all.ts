/**
 * What a describe block's `beforeAll` made, read inside its tests: before that hook has run nothing is
 * there yet, and reading it says so (naming `fixture` and the key read).
 */
export function readAfterBeforeAll<T extends object>(fixture: string, made: () => T | undefined): T {
  return new Proxy({} as T, {
    get(_, key) {
      const value = made();
      if (value === undefined) throw new Error(`${fixture}: ${String(key)} is read before the file's beforeAll has run`);
      return value[key as keyof T];
    },
  });
}
