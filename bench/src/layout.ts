/**
 * How a round spreads Warden over processes:
 *
 * - `up` (the default): what `warden up` runs, the CLI's `up` as one child process with every
 *   core service in it (registry, policy, approver, projector, notary), each its own identity, and
 *   the nats-server it starts; the bench's executor its own process, as a domain team runs one.
 * - `compose`: what docker-compose.yml runs, registry and policy in one process
 *   (`cli/dist/colocated-main.js`), approver, projector, notary and the executor each in its own,
 *   beside a nats-server the bench starts.
 * - `separate`: compose's with registry and policy each in its own process
 *   (deploy/docker-compose.separate.yml).
 */
export const LAYOUTS = ["up", "compose", "separate"] as const;
export type Layout = (typeof LAYOUTS)[number];

export const DEFAULT_LAYOUT: Layout = "up";

/** A layout's name as given on the command line; `colocated` is compose's name from before `up`. */
export function parseLayout(value: string, flag = "--layout"): Layout {
  if (value === "colocated") return "compose";
  if ((LAYOUTS as readonly string[]).includes(value)) return value as Layout;
  throw new Error(`${flag} is one of ${LAYOUTS.join(", ")}, not ${JSON.stringify(value)}`);
}

/**
 * The layout of a bench command line: `--layout NAME`, or the older flags `--separate` and
 * `--colocate` (compose's co-located layout); the default when none is given. Two that disagree
 * are refused rather than one silently winning.
 */
export function layoutOfArgs(args: readonly string[]): Layout {
  const named: Layout[] = [];
  args.forEach((arg, i) => {
    if (arg === "--layout") {
      const value = args[i + 1];
      if (value === undefined || value.startsWith("--")) throw new Error("--layout needs a value");
      named.push(parseLayout(value));
    }
    if (arg === "--separate") named.push("separate");
    if (arg === "--colocate") named.push("compose");
  });
  const distinct = [...new Set(named)];
  if (distinct.length > 1) throw new Error(`the layout is given twice, differently: ${distinct.join(" and ")}`);
  return distinct[0] ?? DEFAULT_LAYOUT;
}

/** The flags that make a round (e.g. a compare's side) run this layout. */
export function layoutArgs(layout: Layout): string[] {
  return ["--layout", layout];
}

/** The processes a round runs, as the table header names them. */
export function layoutText(layout: Layout, upServices?: readonly string[]): string {
  const driver = "the load driver (this process) counted on its own line";
  if (layout === "up") {
    const services = upServices === undefined ? "every core service" : upServices.join(", ");
    return `up: \`warden up\` as one process (${services}, each its own identity) and the nats-server it starts; the bench executor its own process; ${driver}`;
  }
  const first = layout === "compose" ? "registry+policy (one process)" : "registry, policy";
  return `${layout}: as docker-compose runs it, ${first}, approver, projector, notary, executor, nats-server, each process its own identity; ${driver}`;
}
