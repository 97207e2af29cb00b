import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  /** µs on the monotonic clock (CLOCK_MONOTONIC on Linux, as process.hrtime in every process). */
  readonly startTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface Frame {
  readonly name: string;
  /** Share of the process's busy time (samples outside "(idle)") spent in this frame itself. */
  readonly selfPercent: number;
}

/** The package a frame's code is in: `@nats-io/jetstream`, `libs/bus`, `node` (built-ins), or a V8 pseudo-frame. */
function packageOf(functionName: string, url: string): string {
  if (url === "") return functionName.startsWith("(") ? functionName : "native";
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url) ?? /\/((?:libs|services|cli|bench|examples)\/[^/]+)\//.exec(url);
  if (m?.[1] !== undefined) return m[1];
  return url.startsWith("node:") ? "node" : url;
}

/** Where a frame's code lives, short: the package or node_modules path, not the checkout's. */
function place(url: string, line: number): string {
  if (url === "") return "";
  const m = /node_modules\/(.+)$/.exec(url) ?? /\/((?:libs|services|cli|bench|examples)\/.+)$/.exec(url);
  return ` ${m?.[1] ?? url.replace(/^file:\/\//, "")}:${line + 1}`;
}

/** A span of the monotonic clock in µs: only samples inside it count (the load, not the start-up). */
export interface ProfileWindow {
  readonly fromUs: number;
  readonly toUs: number;
}

/** Now on the clock V8 stamps its profiles with, in µs. */
export function monotonicMicros(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/** The frames a V8 CPU profile spent most self time in, by function and place. */
export function topFrames(profile: CpuProfile, n: number, window?: ProfileWindow): { frames: Frame[]; packages: Frame[]; busyMs: number } {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<string, number>();
  const packageUs = new Map<string, number>();
  let busy = 0;
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    at += dt;
    if (window !== undefined && (at < window.fromUs || at > window.toUs)) return;
    const frame = byId.get(id)?.callFrame;
    if (frame === undefined || frame.functionName === "(idle)") return;
    busy += dt;
    const name = `${frame.functionName || "(anonymous)"}${place(frame.url, frame.lineNumber)}`;
    selfUs.set(name, (selfUs.get(name) ?? 0) + dt);
    const pkg = packageOf(frame.functionName, frame.url);
    packageUs.set(pkg, (packageUs.get(pkg) ?? 0) + dt);
  });
  const top = (m: Map<string, number>, k: number) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, k)
      .map(([name, us]) => ({ name, selfPercent: busy === 0 ? 0 : (us / busy) * 100 }));
  return { frames: top(selfUs, n), packages: top(packageUs, 8), busyMs: busy / 1000 };
}

/** Each profile in `dir` as text: its busy time in `window`, then its top frames by self time. */
export function topFramesText(dir: string, n: number, window?: ProfileWindow): string {
  const out: string[] = [];
  const span = window === undefined ? "" : ` in the ${((window.toUs - window.fromUs) / 1e6).toFixed(0)} s under load`;
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".cpuprofile")).sort()) {
    const { frames, packages, busyMs } = topFrames(JSON.parse(readFileSync(join(dir, file), "utf8")) as CpuProfile, n, window);
    out.push(`\n${file.replace(/\.cpuprofile$/, "")}: ${busyMs.toFixed(0)} ms busy${span}; top ${n} frames by self time (% of busy)`);
    out.push(`  by package: ${packages.map((p) => `${p.name} ${p.selfPercent.toFixed(0)} %`).join(", ")}`);
    for (const f of frames) out.push(`  ${f.selfPercent.toFixed(1).padStart(5)} %  ${f.name}`);
  }
  return `${out.join("\n")}\n`;
}
