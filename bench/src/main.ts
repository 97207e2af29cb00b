#!/usr/bin/env node
import { writeFileSync } from "node:fs";
import { runCompare } from "./compare.js";
import { runRound } from "./round.js";
import { printRound } from "./table.js";

/**
 * `npm run bench [-- --quick] [--profile DIR] [--colocate] [--json FILE] [--compare REF [--rounds N]]`:
 * end-to-end `read` calls in `llm` mode, every service in its own process, NATS on this box,
 * printed beside raw JetStream append throughput from the same run and issue 12's targets.
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
// registry and policy in one process (docs/architecture.md, co-location)
const colocate = args.includes("--colocate");
const compareRef = valueOf("--compare");
const jsonFile = valueOf("--json");
const profileDir = valueOf("--profile");
const rounds = Number(valueOf("--rounds") ?? (quick ? 2 : 3));
if (!Number.isInteger(rounds) || rounds < 1) throw new Error("--rounds needs a whole number ≥ 1");

if (compareRef !== undefined) {
  await runCompare({ ref: compareRef, quick, rounds });
} else {
  const report = await runRound({ quick, colocate, ...(profileDir === undefined ? {} : { profileDir }) });
  if (report !== undefined) {
    // a compare run reads the rows from the file and prints its own table
    if (jsonFile !== undefined) writeFileSync(jsonFile, JSON.stringify(report));
    else process.stdout.write(printRound(report));
  }
  // a read left pending by a phase that timed out must not keep the process alive
  process.exit(0);
}
