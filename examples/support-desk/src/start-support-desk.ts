import type { Bus, Logger } from "@warden/bus";
import { startExecutor, type Executor } from "@warden/executor";
import { openOutbox } from "./outbox.js";
import { openTickets } from "./tickets.js";
import { SUPPORT_DESK_DOMAINS, supportDeskTools } from "./tools.js";

export interface SupportDeskOptions {
  readonly bus: Bus;
  readonly log: Logger;
  /** How long each executor waits for the registry at start (default 30 s). */
  readonly registerTimeoutMs?: number;
  /** Approver public keys (base64 SPKI) pinned at provisioning: the only keys a grant is checked against. */
  readonly approverKeys?: readonly string[];
}

export interface SupportDesk {
  readonly executors: readonly Executor[];
  stop(): Promise<void>;
}

/** Creates the demo buckets and starts one executor per support-desk domain. */
export async function startSupportDesk(o: SupportDeskOptions): Promise<SupportDesk> {
  await openOutbox(o.bus);
  await openTickets(o.bus);
  const tools = supportDeskTools(o.bus);
  const log = o.log.child({ component: "support-desk" });
  const started = await Promise.allSettled(
    SUPPORT_DESK_DOMAINS.map((domain) =>
      startExecutor({
        bus: o.bus,
        log,
        domain,
        tools: tools[domain],
        ...(o.registerTimeoutMs === undefined ? {} : { registerTimeoutMs: o.registerTimeoutMs }),
        ...(o.approverKeys === undefined ? {} : { approverKeys: o.approverKeys }),
      }),
    ),
  );
  const executors = started.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
  const failed = started.find((s) => s.status === "rejected");
  if (failed) {
    await Promise.allSettled(executors.map((e) => e.stop()));
    throw failed.reason;
  }
  log.info({ domains: SUPPORT_DESK_DOMAINS }, "support desk started");
  return {
    executors,
    async stop() {
      await Promise.all(executors.map((e) => e.stop()));
    },
  };
}
