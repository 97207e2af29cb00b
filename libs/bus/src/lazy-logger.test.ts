import { Writable } from "node:stream";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { lazyChild } from "./lazy-logger.js";

function capture(level: string) {
  const lines: Record<string, unknown>[] = [];
  const out = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { log: pino({ level }, out), lines };
}

describe("lazyChild", () => {
  it("makes no child for a line below the level, and writes an enabled line with the child's bindings", async () => {
    const { log, lines } = capture("warn");
    let made = 0;
    const lazy = lazyChild(log, () => {
      made++;
      return { callId: "c1" };
    });
    lazy.debug({ x: 1 }, "not written");
    lazy.info("not written either");
    expect(made).toBe(0);
    lazy.warn({ x: 2 }, "written");
    lazy.error("again");
    await new Promise((r) => setImmediate(r));
    // the control: the same calls on a real child write the same lines
    expect(made).toBe(1);
    expect(lines.map((l) => [l["msg"], l["callId"], l["x"]])).toEqual([
      ["written", "c1", 2],
      ["again", "c1", undefined],
    ]);
  });

  it("is a child like any other for what is not a level method: its level, its own children", async () => {
    const { log, lines } = capture("info");
    const lazy = lazyChild(log, () => ({ stage: "s" }));
    expect(lazy.level).toBe("info");
    expect(lazy.isLevelEnabled("debug")).toBe(false);
    lazy.child({ tool: "t" }).info("from a grandchild");
    await new Promise((r) => setImmediate(r));
    expect(lines[0]).toMatchObject({ msg: "from a grandchild", stage: "s", tool: "t" });
  });
});
