import type { Bus } from "@warden/bus";
import { type ArtifactRef } from "@warden/contracts/events";
import { isSafeToken } from "@warden/contracts/subjects";
import { sha256Hex } from "@warden/contracts/json";
import { readArtifact } from "@warden/executor";
import { readCallEvents } from "./trace-reader.js";

/** An artifact as a call's result recorded it, and the event that did. */
export interface RecordedArtifact {
  readonly callId: string;
  readonly eventId: string;
  readonly type: "ToolCallFinished" | "ToolCallLateResult";
  readonly ref: ArtifactRef;
}

export type ArtifactRead =
  | { readonly kind: "ok"; readonly recorded: RecordedArtifact; readonly bytes: Uint8Array }
  /** No event of the call records the artifact (or the call has no events): nothing to check it against. */
  | { readonly kind: "unrecorded"; readonly callId: string; readonly callFound: boolean }
  | { readonly kind: "missing"; readonly recorded: RecordedArtifact }
  /** The stored bytes are not the ones the event recorded. */
  | { readonly kind: "mismatch"; readonly recorded: RecordedArtifact; readonly sha256: string; readonly bytes: number };

/** The call an artifact id names: the executor stores a call's output as `<callId>.output.json`. */
export function callIdOfArtifact(id: string): string | undefined {
  const callId = id.split(".")[0] ?? "";
  return isSafeToken(callId) ? callId : undefined;
}

/**
 * Reads an artifact from `warden_artifacts` and checks it against the ArtifactRef its call's
 * result recorded (sha256 and size). Every executor may write the store, so the bytes there are
 * only as good as that check (docs/security.md, residual risk 5).
 */
export async function readRecordedArtifact(bus: Bus, id: string, callId: string): Promise<ArtifactRead> {
  const found = await readCallEvents(bus, callId);
  let recorded: RecordedArtifact | undefined;
  for (const { event } of found?.entries ?? []) {
    if (event.type !== "ToolCallFinished" && event.type !== "ToolCallLateResult") continue;
    const ref = event.data.artifacts.find((a) => a.id === id);
    // the outcome's record first; a late result's only when the outcome names none
    if (ref !== undefined && (recorded === undefined || event.type === "ToolCallFinished")) recorded = { callId, eventId: event.eventId, type: event.type, ref };
  }
  if (recorded === undefined) return { kind: "unrecorded", callId, callFound: (found?.entries.length ?? 0) > 0 };
  const bytes = await readArtifact(bus, id);
  if (bytes === undefined) return { kind: "missing", recorded };
  const sha256 = sha256Hex(bytes);
  if (sha256 !== recorded.ref.sha256 || bytes.byteLength !== recorded.ref.bytes) return { kind: "mismatch", recorded, sha256, bytes: bytes.byteLength };
  return { kind: "ok", recorded, bytes };
}
