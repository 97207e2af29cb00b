import type { Bus } from "@warden/bus";
import { createApproverClient } from "@warden/sdk";

export interface ApproverBot {
  /** Approvals this person's decisions were accepted for. */
  granted(): number;
  stop(): Promise<void>;
}

const POLL_MS = 200;

/**
 * A person who approves every pending send as it shows up in their inbox, through the approver
 * service like any approval UI; an inbox or decision the approver cannot answer (it is being
 * killed) is simply asked again.
 */
export function startApproverBot(bus: Bus, person: string): ApproverBot {
  const client = createApproverClient({ bus, approver: person, timeoutMs: 2_000 });
  const decided = new Set<string>();
  let granted = 0;
  let stopping = false;
  const loop = (async () => {
    while (!stopping) {
      const pending = await client.pending();
      if (pending.ok) {
        for (const a of pending.value) {
          if (decided.has(a.approvalId) || stopping) continue;
          const r = await client.approve(a.approvalId, a.argsHash, "chaos suite");
          if (r.ok) granted++;
          // anything but "try again later" is final for this approval
          if (r.ok || r.refusal !== "UNAVAILABLE") decided.add(a.approvalId);
        }
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  })();
  return {
    granted: () => granted,
    async stop() {
      stopping = true;
      await loop;
    },
  };
}
