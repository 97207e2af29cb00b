/** Used when the allow-list does not pass PATH through, so bare command names still resolve. */
export const DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

export interface ChildEnvSpec {
  /** Names copied from the executor's environment when set there. */
  readonly allow: readonly string[];
  /** Fixed values from the manifest. */
  readonly set: Readonly<Record<string, string>>;
}

/**
 * The whole environment of a child process: allowed names, fixed values and injected secrets.
 * Nothing else of the parent's environment reaches it.
 */
export function buildChildEnv(
  spec: ChildEnvSpec,
  hostEnv: Readonly<Record<string, string | undefined>>,
  injected: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of spec.allow) {
    const v = hostEnv[name];
    if (v !== undefined) env[name] = v;
  }
  Object.assign(env, spec.set, injected);
  env["PATH"] ??= DEFAULT_PATH;
  return env;
}
