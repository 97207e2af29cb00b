import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { Profile } from "pprof-format";
import type { Frame } from "./profile-top.js";

export interface GoProfileTop {
  /** CPU time the profile sampled, all threads together. */
  readonly busyMs: number;
  readonly seconds: number;
  /** By self time: where the CPU was. */
  readonly frames: Frame[];
  /** By time in the function or anything it called (each function once per sample): which work it was. */
  readonly cumulative: Frame[];
  readonly packages: Frame[];
}

/** `github.com/nats-io/nats-server/v2/server.(*stream).processJetStreamMsg` → `server`; `runtime.mallocgc` → `runtime`. */
export function goPackageOf(fn: string): string {
  // a generic's type arguments may name other packages: only what comes before them counts
  const head = fn.split(/[[(]/)[0]!;
  const lastSlash = head.lastIndexOf("/");
  const dot = head.indexOf(".", lastSlash + 1);
  const path = dot < 0 ? head : head.slice(0, dot);
  return shortName(path);
}

/** Drops the module path (`/v2` or not: Debian builds it without): `server.(*stream).processJetStreamMsg`. */
function shortName(fn: string): string {
  // a generic's instantiation (`[go.shape.struct { … }]`) says nothing a reader of the table needs
  return fn.replace(/^github\.com\/nats-io\/nats-server(\/v2)?\//, "").replace(/^github\.com\//, "").replace(/\[go\.shape[^\]]*\]/g, "[…]");
}

/**
 * A Go CPU profile (`/debug/pprof/profile`, gzipped protobuf: nats-server's `prof_port`) as the
 * functions its samples were in, by self and by cumulative time, and by package.
 */
export function goProfileTop(gzipped: Uint8Array, n: number): GoProfileTop {
  const p = Profile.decode(gunzipSync(gzipped));
  const str = (i: number | bigint) => p.stringTable.strings[Number(i)] ?? "";
  const cpu = Math.max(0, p.sampleType.findIndex((t) => str(t.type) === "cpu"));
  const fnName = new Map(p.function.map((f) => [Number(f.id), str(f.name)]));
  // a location's lines run from the innermost inlined function out to the one it was inlined into
  const linesOf = new Map(p.location.map((l) => [Number(l.id), l.line.map((line) => fnName.get(Number(line.functionId)) ?? "?")]));
  const self = new Map<string, number>();
  const cumulative = new Map<string, number>();
  const packages = new Map<string, number>();
  let total = 0;
  for (const s of p.sample) {
    const ns = Number(s.value[cpu] ?? 0);
    if (ns === 0) continue;
    total += ns;
    const stack = s.locationId.flatMap((id) => linesOf.get(Number(id)) ?? []);
    const leaf = stack[0] ?? "?";
    self.set(leaf, (self.get(leaf) ?? 0) + ns);
    const pkg = goPackageOf(leaf);
    packages.set(pkg, (packages.get(pkg) ?? 0) + ns);
    for (const fn of new Set(stack)) cumulative.set(fn, (cumulative.get(fn) ?? 0) + ns);
  }
  const top = (m: Map<string, number>, k: number, name: (s: string) => string = shortName): Frame[] =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, k)
      .map(([fn, ns]) => ({ name: name(fn), selfPercent: total === 0 ? 0 : (ns / total) * 100 }));
  const inServer = new Map([...cumulative].filter(([fn]) => goPackageOf(fn) === "server"));
  return { busyMs: total / 1e6, seconds: Number(p.durationNanos) / 1e9, frames: top(self, n), cumulative: top(inServer, n), packages: top(packages, 8, (s) => s) };
}

/** The profile as text, in the shape of the Node processes' (profile-top.ts). */
export function goProfileText(name: string, gzipped: Uint8Array, n: number): string {
  const t = goProfileTop(gzipped, n);
  const out = [
    `\n${name}: ${t.busyMs.toFixed(0)} ms CPU in the ${t.seconds.toFixed(0)} s profiled (all threads); top ${n} functions by self time (% of CPU)`,
    `  by package: ${t.packages.map((p) => `${p.name} ${p.selfPercent.toFixed(0)} %`).join(", ")}`,
    ...t.frames.map((f) => `  ${f.selfPercent.toFixed(1).padStart(5)} %  ${f.name}`),
    `  the server's own functions by cumulative time (the function and what it called):`,
    ...t.cumulative.map((f) => `  ${f.selfPercent.toFixed(1).padStart(5)} %  ${f.name}`),
  ];
  return `${out.join("\n")}\n`;
}

/** Where the profile run writes nats-server's profile, beside the Node processes' `.cpuprofile`s. */
export const NATS_PROFILE_FILE = "nats-server.pb.gz";

/** Asks nats-server's profiler for `seconds` of CPU profile (it answers when they are over) and writes it to `file`. */
export async function fetchGoProfile(port: number, seconds: number, file: string): Promise<void> {
  const res = await fetch(`http://127.0.0.1:${port}/debug/pprof/profile?seconds=${seconds}`);
  if (!res.ok) throw new Error(`nats-server's profiler answered ${res.status} ${res.statusText}`);
  writeFileSync(file, new Uint8Array(await res.arrayBuffer()));
}

/** nats-server's profile in `dir` as text, or nothing when the run wrote none. */
export function natsProfileText(dir: string, n: number): string {
  const file = join(dir, NATS_PROFILE_FILE);
  return existsSync(file) ? goProfileText("nats-server", readFileSync(file), n) : "";
}
