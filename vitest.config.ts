import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
import FailedFilesReporter from "./test/support/failed-files-reporter.js";

/**
 * Three projects, so the fast files stop paying for the slow ones' isolation:
 *
 * - `unit`: files that touch no nats-server, child process, browser or process-wide tracer share
 *   one module graph per worker thread (isolate: false): they import the libraries once, not once
 *   per file.
 * - `int`: *.int.test.ts, test/** and the unit files that start a Chromium run in child processes
 *   (forks), each of which runs file after file with the modules it already loaded (isolate:
 *   false). Each file starts and stops its own nats-server, services and browser, so none sees
 *   another's. On this 2-core machine that took the int files from 575 s to 413 s (CPU 1,046 s to
 *   722 s: module import went from 214 s to 23 s).
 * - `isolated`: the files that change what a process holds for everyone after them (the
 *   OpenTelemetry global tracer provider, process.env) get a fresh process each.
 *
 * Int files mostly wait (on a nats-server, a heartbeat running out, a child process), so more of
 * them run at once than there are cores; the default (cores - 1) ran one at a time on CI's 2 cores.
 */
const UNIT = ["libs/*/src/**/*.test.ts", "services/*/src/**/*.test.ts", "cli/src/**/*.test.ts", "examples/*/src/**/*.test.ts", "bench/src/**/*.test.ts"];
const ISOLATED = [
  "libs/service-kit/src/tracing.test.ts",
  "test/e2e/tracing.test.ts",
  "test/e2e/audit-export-otlp.test.ts",
  "services/adapters/src/cli-adapter/cli-adapter.int.test.ts",
];
const NEEDS_ISOLATION = ["**/*.int.test.ts", "libs/inbox-web/src/*-page.test.ts", ...ISOLATED];
const EXCLUDE = ["**/node_modules/**", "**/dist/**"];
/**
 * Files that meet the server's release-specific behaviour (bus reads and appends, poison, durables
 * made again, object reads, provisioning by release, the quickstart), run a second time on another
 * nats-server when WARDEN_TEST_COMPAT_NATS_SERVER_BIN names one: CI runs everything on the release
 * production runs and these again on Debian stable's 2.9.10 (.ci/run), which a bookworm machine's
 * `warden up` starts. Clusters are not run on 2.9.10 (docs/reliability.md: run them on ≥ 2.12).
 */
const COMPAT = [
  "test/bus/*.int.test.ts",
  "libs/bus/src/*.int.test.ts",
  "test/nats-cluster.int.test.ts",
  "test/e2e/quickstart.test.ts",
  "services/registry/src/handlers/tool-call-requested.int.test.ts",
  "services/executor/src/executor-run.int.test.ts",
];
const COMPAT_BIN = process.env["WARDEN_TEST_COMPAT_NATS_SERVER_BIN"];
// one more than the cores: enough to overlap the waits, few enough that a timed test still gets
// its share of CPU (cores + 2 on 2 cores ran a claim past its 2 s grace under load)
const WORKERS = Math.min(availableParallelism() + 1, 8);

export default defineConfig({
  test: {
    exclude: EXCLUDE,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    maxWorkers: WORKERS,
    reporters: ["default", new FailedFilesReporter()],
    // the workspace packages' built dist/ is plain JS: Node imports it, as it does node_modules,
    // instead of Vite transforming and evaluating it again in every file
    server: { deps: { external: [/\/dist\//] } },
    projects: [
      { extends: true, test: { name: "unit", include: UNIT, exclude: [...EXCLUDE, ...NEEDS_ISOLATION], pool: "threads", isolate: false } },
      { extends: true, test: { name: "int", include: [...NEEDS_ISOLATION, "test/**/*.test.ts"], exclude: [...EXCLUDE, ...ISOLATED], pool: "forks", isolate: false } },
      { extends: true, test: { name: "isolated", include: ISOLATED, pool: "forks" } },
      ...(COMPAT_BIN ? [{ extends: true as const, test: { name: "compat", include: COMPAT, pool: "forks" as const, env: { NATS_SERVER_BIN: COMPAT_BIN } } }] : []),
    ],
  },
});
