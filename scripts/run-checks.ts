// Runs the given npm scripts at once and prints each one's output whole when it ends; exits 1 if any failed.
// `npm test` runs lint and the tests' type check this way: each is one process on one core.
import { spawn } from "node:child_process";

const names = process.argv.slice(2);
if (names.length === 0) {
  process.stderr.write("usage: node scripts/run-checks.ts <npm script>...\n");
  process.exit(2);
}

const runs = names.map(
  (name) =>
    new Promise<boolean>((done) => {
      const started = Date.now();
      const child = spawn("npm", ["run", "--silent", name], { stdio: ["ignore", "pipe", "pipe"] });
      const out: Buffer[] = [];
      child.stdout.on("data", (b: Buffer) => out.push(b));
      child.stderr.on("data", (b: Buffer) => out.push(b));
      child.on("close", (code) => {
        const seconds = ((Date.now() - started) / 1000).toFixed(1);
        process.stdout.write(`> ${name}: ${code === 0 ? "ok" : `failed (exit ${code})`} in ${seconds} s\n${Buffer.concat(out).toString()}`);
        done(code === 0);
      });
      child.on("error", (err) => {
        process.stdout.write(`> ${name}: could not start: ${err.message}\n`);
        done(false);
      });
    }),
);
const ok = (await Promise.all(runs)).every(Boolean);
process.exit(ok ? 0 : 1);
