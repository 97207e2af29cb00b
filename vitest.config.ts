import { defineConfig } from "vitest/config";

/**
 * Two projects, so the fast files stop paying for the slow ones' isolation:
 *
 * - `unit`: files that touch no nats-server, child process, browser or process-wide tracer share
 *   one module graph per worker thread (isolate: false): they import the libraries once, not once
 *   per file.
 * - `int`: *.int.test.ts, test/** and the unit files below that hold a process-wide thing (the
 *   OpenTelemetry global provider, a Chromium) each get a fresh process (forks, isolated).
 */
const UNIT = ["libs/*/src/**/*.test.ts", "services/*/src/**/*.test.ts", "cli/src/**/*.test.ts", "examples/*/src/**/*.test.ts"];
const NEEDS_ISOLATION = ["**/*.int.test.ts", "libs/service-kit/src/tracing.test.ts", "libs/inbox-web/src/*-page.test.ts"];
const EXCLUDE = ["**/node_modules/**", "**/dist/**"];

export default defineConfig({
  test: {
    exclude: EXCLUDE,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // the workspace packages' built dist/ is plain JS: Node imports it, as it does node_modules,
    // instead of Vite transforming and evaluating it again in every file
    server: { deps: { external: [/\/dist\//] } },
    projects: [
      { extends: true, test: { name: "unit", include: UNIT, exclude: [...EXCLUDE, ...NEEDS_ISOLATION], pool: "threads", isolate: false } },
      { extends: true, test: { name: "int", include: [...NEEDS_ISOLATION, "test/**/*.test.ts"], pool: "forks" } },
    ],
  },
});
