import { describe, expect, it } from "vitest";
import { descendantsOf, parseProcStat, type ProcStat } from "./process-tree.js";

// a real line's shape: pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime …
const line = (pid: number, comm: string, ppid: number, utime: number, stime: number) =>
  `${pid} (${comm}) S ${ppid} ${pid} ${pid} 0 -1 4194560 1200 0 0 0 ${utime} ${stime} 0 0 20 0 11 0 5000 1000000 3000`;

describe("parseProcStat", () => {
  it("reads the pid, the parent, the command name and utime + stime", () => {
    expect(parseProcStat(line(4242, "nats-server", 4200, 150, 25))).toEqual({ pid: 4242, ppid: 4200, comm: "nats-server", cpuTicks: 175 });
  });

  it("counts the fields from the last parenthesis, so a command name with spaces and parentheses is read whole", () => {
    expect(parseProcStat(line(7, "a) b (c", 1, 3, 4))).toEqual({ pid: 7, ppid: 1, comm: "a) b (c", cpuTicks: 7 });
  });

  it("answers undefined for text that is not a stat line", () => {
    expect(parseProcStat("")).toBeUndefined();
    expect(parseProcStat("no parentheses here")).toBeUndefined();
    expect(parseProcStat("12 (node) S")).toBeUndefined();
  });
});

describe("descendantsOf", () => {
  const p = (pid: number, ppid: number, comm = "node"): ProcStat => ({ pid, ppid, comm, cpuTicks: 0 });

  it("finds the children and their children, nearest first, and nothing beside them", () => {
    // 100: the bench; 200: warden up; 300: its nats-server; 310: a child of that; 400: the executor (the bench's, not up's)
    const table = [p(1, 0, "init"), p(100, 1), p(310, 300, "helper"), p(200, 100), p(300, 200, "nats-server"), p(400, 100), p(500, 1)];
    expect(descendantsOf(200, table).map((x) => x.pid)).toEqual([300, 310]);
    expect(descendantsOf(100, table).map((x) => x.pid)).toEqual([200, 400, 300, 310]);
  });

  it("finds nothing below a process without children, and stops on a cycle in a torn read", () => {
    expect(descendantsOf(500, [p(500, 1)])).toEqual([]);
    expect(descendantsOf(1, [p(2, 1), p(1, 2)]).map((x) => x.pid)).toEqual([2]);
  });
});
