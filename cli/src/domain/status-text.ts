import { cut } from "../output.js";
import { wrapTokens } from "./short-forms.js";

/** What `warden status` reports (its --json document). */
export interface StatusReport {
  readonly at: string;
  readonly services: readonly { readonly name: string; readonly id: string; readonly version: string; readonly metadata: Readonly<Record<string, string>> }[];
  readonly executors: readonly { readonly domain: string; readonly enabledTools: number; readonly alive: boolean; readonly executorId?: string; readonly at?: string }[];
  readonly consumers: readonly { readonly durable: string; readonly pending: number; readonly ackPending: number; readonly redelivered: number; readonly waiting: number }[];
  readonly dlq: { readonly messages: number; readonly bytes: number };
  readonly stream: {
    readonly name: string;
    readonly messages: number;
    readonly bytes: number;
    readonly firstTs: string | null;
    readonly lastTs: string | null;
    /** 0: kept for ever. */
    readonly maxAgeSeconds: number;
    readonly replicas: number;
  };
  readonly approvals: { readonly pending: number; readonly oldestWaitingSeconds?: number };
  /** How far the read models and the evidence are behind the stream's last sequence. */
  readonly history: {
    readonly lastSeq: number;
    readonly projectorCursor: number;
    /** null: no checkpoint yet. */
    readonly sealedThrough: number | null;
    readonly lastCheckpointAt: string | null;
  };
  readonly policy: { readonly version: string | null; readonly revision?: number; readonly note?: string };
  /** What an operator should look at, in words. */
  readonly problems: readonly string[];
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const days = (s: number) => (s === 0 ? "kept for ever" : s % 86_400 === 0 ? `${s / 86_400} days` : `${s} s`);

/** The report for a person, within 100 columns. */
export function statusText(r: StatusReport): string {
  const lines: string[] = [`warden status at ${r.at}`, ""];
  lines.push(`services (${r.services.length} answered discovery)`);
  if (r.services.length === 0) lines.push("  none");
  for (const s of r.services) {
    const meta = Object.entries(s.metadata).filter(([k]) => k !== "tools").map(([k, v]) => `${k}=${v}`).join(" ");
    lines.push(cut(`  ${s.name.padEnd(18)} ${s.version.padEnd(8)} ${s.id}${meta === "" ? "" : `  ${meta}`}`, 100));
  }
  lines.push("", "executors by domain");
  if (r.executors.length === 0) lines.push("  none registered");
  for (const e of r.executors) {
    lines.push(cut(`  ${e.domain.padEnd(18)} ${(e.alive ? "up" : "DOWN").padEnd(5)} ${String(e.enabledTools).padStart(3)} enabled tool(s)${e.executorId === undefined ? "" : `  last beat ${e.executorId}`}`, 100));
  }
  lines.push("", "stage consumers (pending / in flight / redelivered)");
  for (const c of r.consumers) lines.push(cut(`  ${c.durable.padEnd(40)} ${String(c.pending).padStart(8)} ${String(c.ackPending).padStart(8)} ${String(c.redelivered).padStart(8)}`, 100));
  lines.push(
    "",
    `stream    ${r.stream.name}: ${r.stream.messages} events, ${mib(r.stream.bytes)}, retention ${days(r.stream.maxAgeSeconds)}, R${r.stream.replicas}`,
    `          ${r.stream.firstTs === null ? "empty" : `${r.stream.firstTs} .. ${r.stream.lastTs}`}`,
    `history   read models at seq ${r.history.projectorCursor} of ${r.history.lastSeq}; sealed through ${r.history.sealedThrough ?? "nothing yet"}${r.history.lastCheckpointAt === null ? "" : ` (last checkpoint ${r.history.lastCheckpointAt})`}`,
    `dlq       ${r.dlq.messages} dead letter(s)`,
    `approvals ${r.approvals.pending} waiting for a person${r.approvals.oldestWaitingSeconds === undefined ? "" : `, the oldest for ${r.approvals.oldestWaitingSeconds} s`}`,
    `policy    ${r.policy.version === null ? `none (${r.policy.note ?? "?"})` : `version ${r.policy.version}`}`,
  );
  lines.push("", r.problems.length === 0 ? "no problems seen" : `problems (${r.problems.length})`);
  for (const p of r.problems) lines.push(...wrapTokens("  - ", p.split(" "), 100, "    "));
  return lines.join("\n");
}
