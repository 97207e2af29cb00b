import { readEvent, type Bus } from "@warden/bus";
import type { StreamOutcome } from "./domain/settled-on-stream.js";

/** Reads a call's ApprovalGranted, ApprovalDenied, ApprovalExpired and ToolCallCancelled from the stream. */
export async function readStreamOutcome(bus: Bus, domain: string, callId: string): Promise<StreamOutcome> {
  const [granted, denied, expired, cancelled] = await Promise.all([
    readEvent(bus, domain, callId, "ApprovalGranted"),
    readEvent(bus, domain, callId, "ApprovalDenied"),
    readEvent(bus, domain, callId, "ApprovalExpired"),
    readEvent(bus, domain, callId, "ToolCallCancelled"),
  ]);
  return { granted, denied, expired, ...(cancelled === undefined ? {} : { cancelled }) };
}
