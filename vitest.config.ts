import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["libs/*/src/**/*.test.ts", "services/*/src/**/*.test.ts", "cli/src/**/*.test.ts", "examples/*/src/**/*.test.ts", "test/**/*.test.ts"],
    exclude: ["**/node_modules/**", "**/dist/**"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // the workspace packages' built dist/ is plain JS: Node imports it, as it does node_modules,
    // instead of Vite transforming and evaluating it again in every file
    server: { deps: { external: [/\/dist\//] } },
  },
});
