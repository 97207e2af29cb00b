import { describe, expect, it } from "vitest";
import { HeldMessages, type Delivery } from "./held-messages.js";

function delivery(seq: number, log: string[]): Delivery {
  return { seq, ack: () => log.push(`ack ${seq}`), nak: () => log.push(`nak ${seq}`), working: () => log.push(`working ${seq}`) };
}

describe("held messages", () => {
  it("hands out only the consecutive run after the cursor, and holds what lies beyond a gap", () => {
    const log: string[] = [];
    const held = new HeldMessages<Delivery>();
    for (const s of [5, 3, 4, 8, 9]) held.add(delivery(s, log));
    expect(held.runFrom(3, 10).map((m) => m.seq)).toEqual([3, 4, 5]);
    expect(held.runFrom(3, 2).map((m) => m.seq)).toEqual([3, 4]);
    expect(held.runFrom(6, 10)).toEqual([]);
    expect([...held.seqs()].sort((a, b) => a - b)).toEqual([3, 4, 5, 8, 9]);
  });

  it("acks every delivery of what the cursor has passed, duplicates included", () => {
    const log: string[] = [];
    const held = new HeldMessages<Delivery>();
    for (const s of [1, 2, 2, 3]) held.add(delivery(s, log));
    held.settle(2);
    expect(log).toEqual(["ack 1", "ack 2", "ack 2"]);
    expect(held.size).toBe(1);
    expect(held.runFrom(3, 5).map((m) => m.seq)).toEqual([3]);
  });

  it("on a durable that acks all up to a sequence, acks only the last delivery of the highest one the cursor passed", () => {
    const log: string[] = [];
    const held = new HeldMessages<Delivery>(true);
    const again = delivery(4, []);
    for (const d of [delivery(2, log), delivery(4, log), delivery(3, log), delivery(6, log)]) held.add(d);
    held.add({ ...again, ack: () => log.push("ack 4 (again)") });
    held.settle(5);
    expect(log).toEqual(["ack 4 (again)"]);
    expect([...held.seqs()]).toEqual([6]);
    held.settle(5);
    expect(log).toHaveLength(1);
  });

  it("hands everything back on release and keeps deliveries alive on touch", () => {
    const log: string[] = [];
    const held = new HeldMessages<Delivery>();
    held.add(delivery(7, log));
    held.touch();
    held.release();
    expect(log).toEqual(["working 7", "nak 7"]);
    expect(held.size).toBe(0);
  });
});
