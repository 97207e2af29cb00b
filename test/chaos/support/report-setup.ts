import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readRows, renderTable } from "./report.js";

/**
 * Vitest global setup of the long suite: scenarios run in worker processes and append their rows
 * to one file (CHAOS_REPORT_FILE, inherited by the workers); the table is printed once all ran.
 */
export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), "warden-chaos-report-"));
  const file = join(dir, "rows.jsonl");
  process.env["CHAOS_REPORT_FILE"] = file;
  return () => {
    const rows = readRows(file);
    const settings = ["CHAOS_KILLS", "CHAOS_BACKLOG", "CHAOS_NATS_RESTARTS", "CHAOS_FREEZES", "CHAOS_LEADER_KILLS", "CHAOS_MID_DECISION_KILLS"]
      .filter((k) => process.env[k] !== undefined)
      .map((k) => `${k}=${process.env[k]}`);
    process.stdout.write(`\nWarden chaos suite (${new Date().toISOString()}${settings.length ? `; ${settings.join(" ")}` : ""})\n${renderTable(rows)}\n\n`);
    rmSync(dir, { recursive: true, force: true });
  };
}
