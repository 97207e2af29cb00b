import { defineConfig } from "vitest/config";
import FailedFilesReporter from "../support/failed-files-reporter.js";

/**
 * `npm run chaos`: the long chaos suite (test/chaos/*.chaos.ts), one scenario at a time on its own
 * deployment, then the table of every scenario (support/report-setup.ts). Not part of `npm test`;
 * the short variant (chaos-short.test.ts) is.
 */
export default defineConfig({
  test: {
    root: new URL("../..", import.meta.url).pathname,
    include: ["test/chaos/**/*.chaos.ts"],
    exclude: ["**/node_modules/**", "**/dist/**"],
    globalSetup: ["test/chaos/support/report-setup.ts"],
    pool: "forks",
    fileParallelism: false,
    reporters: ["default", new FailedFilesReporter()],
    testTimeout: 30 * 60_000,
    hookTimeout: 5 * 60_000,
  },
});
