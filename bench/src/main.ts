#!/usr/bin/env node
import { writeFileSync } from "node:fs";
import { runCompare } from "./compare.js";
import { natsProfileText } from "./go-profile-top.js";
import { topFramesText } from "./profile-top.js";
import { layoutArgs, layoutOfArgs, parseLayout } from "./layout.js";
import { profiledWindow, runRound } from "./round.js";
import { printRound } from "./table.js";

/**
 * `npm run bench [-- --quick] [--layout up|compose|separate] [--profile DIR] [--json FILE] [--compare REF [--rounds N] [--b-layout L]]`:
 * end-to-end `read` calls in `llm` mode against Warden as a layout runs it (layout.ts: by default
 * `warden up`, every core service in its one process; `compose` as docker-compose runs it;
 * `separate` with registry and policy each in its own process), NATS on this box, the load
 * driver's CPU counted, printed beside raw JetStream append throughput from the same run and
 * issue 27's targets.
 */
const args = process.argv.slice(2);
const valueOf = (flag: string): string | undefined => {
  const at = args.indexOf(flag);
  if (at < 0) return undefined;
  const value = args[at + 1];
  if (value === undefined || value.startsWith("--")) throw new Error(`${flag} needs a value`);
  return value;
};
const quick = args.includes("--quick");
// `warden up`'s unless --layout (or the older --separate / --colocate) names another
const layout = layoutOfArgs(args);
// in a compare, B's layout when it should differ from A's (e.g. the layout main ran before issue 27)
const bFlag = valueOf("--b-layout");
const bLayout = bFlag === undefined ? layout : parseLayout(bFlag, "--b-layout");
const compareRef = valueOf("--compare");
const jsonFile = valueOf("--json");
const profileDir = valueOf("--profile");
const rounds = Number(valueOf("--rounds") ?? (quick ? 2 : 3));
if (!Number.isInteger(rounds) || rounds < 1) throw new Error("--rounds needs a whole number ≥ 1");

if (compareRef !== undefined) {
  // both sides run this build's bench code (compare.ts), so both read these flags
  await runCompare({ ref: compareRef, quick, rounds, aArgs: layoutArgs(layout), bArgs: layoutArgs(bLayout) });
} else {
  const report = await runRound({ quick, layout, ...(profileDir === undefined ? {} : { profileDir }) });
  if (profileDir !== undefined) process.stdout.write(topFramesText(profileDir, 15, profiledWindow()) + natsProfileText(profileDir, 15));
  if (report !== undefined) {
    // a compare run reads the rows from the file and prints its own table
    if (jsonFile !== undefined) writeFileSync(jsonFile, JSON.stringify(report));
    else process.stdout.write(printRound(report));
  }
  // a read left pending by a phase that timed out must not keep the process alive
  process.exit(0);
}
