import { readEvent, type Bus } from "@warden/bus";

/**
 * Of the calls a ledger or a history limit holds, those cancelled before they started: their claim
 * slot holds a ToolCallCancelled. Such a call never ran and no result will settle it, so a limit
 * that would refuse releases them first (nothing is read while it has room). A hold written before
 * holds recorded their domain cannot be looked up, and stays.
 */
export async function cancelledAmong(bus: Bus, held: readonly { readonly callId: string; readonly domain?: string | undefined }[]): Promise<string[]> {
  const found = await Promise.all(
    held.map(async (h) => (h.domain !== undefined && (await readEvent(bus, h.domain, h.callId, "ToolCallCancelled")) !== undefined ? h.callId : undefined)),
  );
  return found.filter((id) => id !== undefined);
}
