import type { ToolResult } from "@warden/contracts/events";
import { EXIT_FAILED, EXIT_OK, EXIT_PENDING } from "../errors.js";

/** A call that waits for a person (also a --wait that ran out while it did) is not a failure. */
export function callExitCode(r: ToolResult): number {
  if (r.ok) return EXIT_OK;
  return r.status === "awaiting_approval" || (r.status === "pending" && r.approvalId !== undefined) ? EXIT_PENDING : EXIT_FAILED;
}

/** The one JSON document `warden call --json` prints. */
export interface CallDocument {
  readonly callId: string;
  readonly ok: boolean;
  readonly status: ToolResult["status"];
  readonly data?: ToolResult["data"];
  readonly error?: { readonly code: string; readonly message: string };
  readonly requiresConfirm?: boolean;
  readonly approvalId?: string;
  /** Who may decide the approval, as its card names them. */
  readonly deciders?: readonly string[];
  readonly artifacts?: ToolResult["artifacts"];
  readonly truncated?: boolean;
}

export function callDocument(r: ToolResult): CallDocument {
  return {
    callId: r.callId,
    ok: r.ok,
    status: r.status,
    ...(r.data === undefined ? {} : { data: r.data }),
    ...(r.error === undefined ? {} : { error: { code: r.error.code, message: r.error.message } }),
    ...(r.requiresConfirm ? { requiresConfirm: true } : {}),
    ...(r.approvalId === undefined ? {} : { approvalId: r.approvalId }),
    ...(r.deciders?.length ? { deciders: r.deciders } : {}),
    ...(r.artifacts?.length ? { artifacts: r.artifacts } : {}),
    ...(r.truncated ? { truncated: true } : {}),
  };
}

/** The text a person reads: the status, then the data or the error and what to do next. */
export function callText(r: ToolResult): string {
  const lines = [`${r.status}  (call ${r.callId})`];
  if (r.error) lines.push(`${r.error.code}: ${r.error.message}`);
  if (r.data !== undefined) lines.push(JSON.stringify(r.data, null, 2));
  if (r.truncated) lines.push("(the output above is a preview; the full output is stored as an artifact)");
  for (const a of r.artifacts ?? []) lines.push(`artifact ${a.id}  ${a.bytes} bytes  sha256 ${a.sha256}`);
  if ((r.status === "awaiting_approval" || r.status === "pending") && r.approvalId) {
    // the card's deciders; a placeholder only when it names none (no one may decide: it expires)
    const who = r.deciders?.[0] ?? "<approver>";
    lines.push(
      ...(r.deciders?.length ? [`may decide: ${r.deciders.join(", ")}`] : []),
      `next: npx warden approve ${r.approvalId} --as ${who}   (or deny ${r.approvalId} --as ${who} --reason "...")`,
      `      npx warden trace ${r.callId}`,
    );
  } else if (r.status === "pending") lines.push(`next: npx warden trace ${r.callId}`);
  return lines.join("\n");
}
