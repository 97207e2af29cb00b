/**
 * What the compiled event check saves: per event, the compiled predicate against zod's safeParse
 * of the same schema, and the stages' whole read (validateEventJson) against zod alone, over the
 * events of synthetic calls of every outcome. `node bench/dist/event-check.js [rounds]`.
 */
import { compiledEventCheck, validateEventJson, validateEventJsonWithZod, WardenEventSchema } from "@warden/contracts/events";
import { SYNTHETIC_OUTCOMES, syntheticCall } from "@warden/testing";

const rounds = Number(process.argv[2] ?? 2000);
// as a stage reads them: decoded from JSON, never the objects that built them
const events: unknown[] = SYNTHETIC_OUTCOMES.flatMap((outcome, i) => syntheticCall({ callId: `c${i}`, outcome, args: { q: "refund", n: [1, 2.5, null], o: { deep: { x: "é🙂" } } } })).map((e) => JSON.parse(JSON.stringify(e)) as unknown);
const check = compiledEventCheck();
if (check === null) throw new Error("the event schema does not compile");

function perEvent(name: string, f: (e: unknown) => unknown): number {
  for (let r = 0; r < rounds / 10; r++) for (const e of events) f(e); // warm up
  const t0 = process.hrtime.bigint();
  for (let r = 0; r < rounds; r++) for (const e of events) f(e);
  const ns = Number(process.hrtime.bigint() - t0) / (rounds * events.length);
  console.log(`${name.padEnd(54)} ${(ns / 1000).toFixed(2).padStart(7)} µs/event`);
  return ns;
}

console.log(`${events.length} events × ${rounds} rounds, Node ${process.version}`);
const zod = perEvent("WardenEventSchema.safeParse", (e) => WardenEventSchema.safeParse(e));
const compiled = perEvent("compiledEventCheck()", (e) => check(e, 1, Number.MAX_SAFE_INTEGER));
const withZod = perEvent("validateEventJsonWithZod (safeParse + same-as-stored)", (e) => validateEventJsonWithZod(e));
const stages = perEvent("validateEventJson (compiled first)", (e) => validateEventJson(e));
console.log(`compiled check vs safeParse: ${(zod / compiled).toFixed(1)}x; a stage's read: ${(withZod / stages).toFixed(1)}x`);
