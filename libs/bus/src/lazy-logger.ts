import type { Logger } from "./logger.js";

const LEVELS: ReadonlySet<string> = new Set(["fatal", "error", "warn", "info", "debug", "trace"]);
const noop = (): void => undefined;

/**
 * A child logger that is made only when it writes a line, or when anything but a disabled level
 * method is asked of it. `log.debug(...)` at level warn then costs no child: pino serializes a
 * child's bindings when it is made, which showed as ~2 % of a stage's CPU when every call made
 * one (issue 27's profiles). The lines it writes are the child's, bindings and all.
 */
export function lazyChild(parent: Logger, bindings: () => Record<string, unknown>): Logger {
  let child: Logger | undefined;
  const made = () => (child ??= parent.child(bindings()));
  // an empty target: the proxy's invariants then bind it to nothing of the parent's own properties
  return new Proxy({} as Logger, {
    get(_target, prop) {
      if (child === undefined && typeof prop === "string" && LEVELS.has(prop) && !parent.isLevelEnabled(prop)) return noop;
      const target = made();
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
