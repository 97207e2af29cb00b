import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../..");
const README = join(ROOT, "docs/examples/history/README.md");

/** Each command of the README with the lines it shows after it (a ```sh block, then a plain ``` block). */
function examples(): { command: string; shown: string[] }[] {
  const text = readFileSync(README, "utf8");
  const out: { command: string; shown: string[] }[] = [];
  for (const m of text.matchAll(/```sh\n([\s\S]*?)\n```\n\n```\n([\s\S]*?)\n```/g)) out.push({ command: m[1]!.trim(), shown: m[2]!.split("\n") });
  return out;
}

function run(command: string): Promise<{ code: number; stdout: string; stderr: string }> {
  // the README's `npx warden` is this checkout's CLI
  const local = command.replace(/^npx warden /, `${JSON.stringify(process.execPath)} cli/dist/main.js `);
  return new Promise((done) =>
    execFile("sh", ["-c", local], { cwd: ROOT, timeout: 20_000 }, (err, stdout, stderr) => done({ code: err ? (typeof err.code === "number" ? err.code : -1) : 0, stdout, stderr })),
  );
}

describe("docs/examples/history: the history-aware policy examples, as the README runs them", () => {
  const all = examples();

  it("has the four sequences, each refused and allowed", () => {
    expect(all).toHaveLength(8);
    expect(all.map((e) => e.shown[0]!.split(" ")[0])).toEqual(["require_approval", "allow", "deny", "allow", "deny", "allow", "deny", "allow"]);
  });

  it.each(all.map((e, i) => [i + 1, e] as const))("example %i prints what the README shows", async (_n, e) => {
    const r = await run(e.command);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split("\n").slice(0, e.shown.length)).toEqual(e.shown);
  });
});
