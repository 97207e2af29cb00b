import type { Reporter, SerializedError, TestModule } from "vitest/node";

/**
 * Ends a run with one line per test file that failed and why, next to the default reporter. A
 * file can fail with no failing test (it crashed while loading, in a hook, or its worker died)
 * and CI once exited 1 naming none; this names the file and its first error either way.
 */
export default class FailedFilesReporter implements Reporter {
  onTestRunEnd(modules: readonly TestModule[], unhandled: readonly SerializedError[]): void {
    const lines: string[] = [];
    for (const m of modules) {
      if (m.state() !== "failed") continue;
      const failedTests = [...m.children.allTests("failed")];
      const why = m.errors()[0] ?? failedTests[0]?.result().errors?.[0];
      const what = failedTests.length > 0 ? `${failedTests.length} failed test(s), first "${failedTests[0]!.fullName}"` : "no failing test: the file itself failed (load, hook or worker)";
      lines.push(`  ${m.relativeModuleId}: ${what}${why === undefined ? "" : ` — ${firstLine(why)}`}`);
    }
    for (const e of unhandled) {
      const file = (e as { VITEST_TEST_PATH?: string }).VITEST_TEST_PATH;
      lines.push(`  unhandled error${file === undefined ? "" : ` from ${file}`}: ${firstLine(e)}`);
    }
    if (lines.length > 0) process.stderr.write(`\nFailed test files:\n${lines.join("\n")}\n`);
  }
}

function firstLine(e: SerializedError): string {
  return `${e.name ?? "Error"}: ${(e.message ?? "").split("\n")[0]!.slice(0, 300)}`;
}
