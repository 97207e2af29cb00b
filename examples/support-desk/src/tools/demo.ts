import { setTimeout as delay } from "node:timers/promises";
import { z } from "zod";
import { defineTool } from "@warden/executor";

export const demoFail = defineTool({
  name: "demo.fail",
  // 1.1.0: action type read
  version: "1.1.0",
  title: "A tool that always fails",
  description: "Use when you want to see how Warden reports a tool that throws: the call ends as an error result, nothing else breaks.",
  grade: "read",
  actionType: "read",
  input: z.strictObject({}),
  handler: () => {
    throw new Error("demo.fail always fails: this is what a broken tool looks like");
  },
});

export const demoSlow = defineTool({
  name: "demo.slow",
  // 1.1.0: action type read
  version: "1.1.0",
  title: "A tool that hangs",
  description: "Use when you want to see how Warden reports a tool that outlives its 200 ms timeout: the call ends as a TIMEOUT error.",
  grade: "read",
  actionType: "read",
  timeoutMs: 200,
  input: z.strictObject({}),
  handler: async (_args, ctx) => {
    await delay(10_000, undefined, { signal: ctx.signal });
    return { finished: true };
  },
});

const BIG_ROWS = 6_500;

/** About 1 MB of JSON: rows of made-up order history. */
export function bigOutput(rows = BIG_ROWS) {
  return Array.from({ length: rows }, (_, i) => ({
    row: i,
    orderId: `O-${String(100_000 + i)}`,
    customerId: `C-${i % 97}`,
    status: ["placed", "packed", "shipped", "delivered", "refunded"][i % 5],
    note: `order ${i} of the demo export, padded so the whole answer is about a megabyte`,
  }));
}

export const demoBig = defineTool({
  name: "demo.big",
  // 1.1.0: action type read
  version: "1.1.0",
  title: "A tool with a very large answer",
  description: "Use when you want to see how Warden stores a large output (about 1 MB): the event keeps a preview and the full JSON goes to the object store.",
  grade: "read",
  actionType: "read",
  idempotent: true,
  maxOutputBytes: 4 * 1024 * 1024,
  input: z.strictObject({}),
  handler: () => bigOutput(),
});
