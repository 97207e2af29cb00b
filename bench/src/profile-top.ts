import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface Frame {
  readonly name: string;
  /** Share of the process's busy time (samples outside "(idle)") spent in this frame itself. */
  readonly selfPercent: number;
}

/** Where a frame's code lives, short: the package or node_modules path, not the checkout's. */
function place(url: string, line: number): string {
  if (url === "") return "";
  const m = /node_modules\/(.+)$/.exec(url) ?? /\/((?:libs|services|cli|bench|examples)\/.+)$/.exec(url);
  return ` ${m?.[1] ?? url.replace(/^file:\/\//, "")}:${line + 1}`;
}

/** The frames a V8 CPU profile spent most self time in, by function and place. */
export function topFrames(profile: CpuProfile, n: number): { frames: Frame[]; busyMs: number } {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const frame = byId.get(id)?.callFrame;
    if (frame === undefined || frame.functionName === "(idle)") return;
    const dt = profile.timeDeltas[i] ?? 0;
    busy += dt;
    const name = `${frame.functionName || "(anonymous)"}${place(frame.url, frame.lineNumber)}`;
    selfUs.set(name, (selfUs.get(name) ?? 0) + dt);
  });
  const frames = [...selfUs]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, us]) => ({ name, selfPercent: busy === 0 ? 0 : (us / busy) * 100 }));
  return { frames, busyMs: busy / 1000 };
}

/** Each profile in `dir` as text: its busy time, then its top frames by self time. */
export function topFramesText(dir: string, n: number): string {
  const out: string[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".cpuprofile")).sort()) {
    const { frames, busyMs } = topFrames(JSON.parse(readFileSync(join(dir, file), "utf8")) as CpuProfile, n);
    out.push(`\n${file.replace(/\.cpuprofile$/, "")}: ${busyMs.toFixed(0)} ms busy; top ${n} frames by self time`);
    for (const f of frames) out.push(`  ${f.selfPercent.toFixed(1).padStart(5)} %  ${f.name}`);
  }
  return `${out.join("\n")}\n`;
}
