#!/usr/bin/env node
import { writeFileSync } from "node:fs";
import { runCompare } from "./compare.js";
import { topFramesText } from "./profile-top.js";
import { profiledWindow, runRound, type Layout } from "./round.js";
import { printRound } from "./table.js";

/**
 * `npm run bench [-- --quick] [--profile DIR] [--separate] [--json FILE] [--compare REF [--rounds N] [--b-layout separate|colocated]]`:
 * end-to-end `read` calls in `llm` mode against the deployment as docker-compose runs it (registry
 * and policy in one process unless --separate; approver, projector, notary, executor each in its
 * own), NATS on this box, the load driver's CPU counted, printed beside raw JetStream append
 * throughput from the same run and issue 27's targets.
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
// registry and policy in one process (docs/architecture.md, co-location) unless --separate;
// --colocate is still accepted, it names the default
const layout: Layout = args.includes("--separate") ? "separate" : "colocated";
// in a compare, B's layout when it should differ from A's (e.g. the layout main ran before issue 27)
const bLayout = valueOf("--b-layout");
if (bLayout !== undefined && bLayout !== "separate" && bLayout !== "colocated") throw new Error("--b-layout is separate or colocated");
const compareRef = valueOf("--compare");
const jsonFile = valueOf("--json");
const profileDir = valueOf("--profile");
const rounds = Number(valueOf("--rounds") ?? (quick ? 2 : 3));
if (!Number.isInteger(rounds) || rounds < 1) throw new Error("--rounds needs a whole number ≥ 1");

if (compareRef !== undefined) {
  const flagOf = (l: Layout) => (l === "separate" ? ["--separate"] : []);
  await runCompare({ ref: compareRef, quick, rounds, aArgs: flagOf(layout), bArgs: flagOf((bLayout as Layout | undefined) ?? layout) });
} else {
  const report = await runRound({ quick, layout, ...(profileDir === undefined ? {} : { profileDir }) });
  if (profileDir !== undefined) process.stdout.write(topFramesText(profileDir, 15, profiledWindow()));
  if (report !== undefined) {
    // a compare run reads the rows from the file and prints its own table
    if (jsonFile !== undefined) writeFileSync(jsonFile, JSON.stringify(report));
    else process.stdout.write(printRound(report));
  }
  // a read left pending by a phase that timed out must not keep the process alive
  process.exit(0);
}
