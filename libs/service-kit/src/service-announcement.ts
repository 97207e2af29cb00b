import { createRequire } from "node:module";
import { encodeJson, type Bus, type Logger } from "@warden/bus";
import { newId } from "@warden/contracts/events";

/** Warden's packages are versioned together; this is the one every service reports. */
export const WARDEN_VERSION: string = (createRequire(import.meta.url)("../package.json") as { version: string }).version;

/** What a service says of itself on the NATS micro discovery subjects. */
export interface ServiceIdentity {
  readonly name: string;
  readonly id: string;
  readonly version: string;
  readonly metadata: Readonly<Record<string, string>>;
}

export interface ServiceAnnouncement {
  readonly identity: ServiceIdentity;
  stop(): Promise<void>;
}

/**
 * Answers the NATS micro discovery requests (`$SRV.PING`, `$SRV.INFO`, `$SRV.STATS`, each also
 * `.<name>` and `.<name>.<id>`; the services protocol of NATS ADR-32) for one service, so that
 * `warden status` and `nats micro ls` find it. A small responder of our own: the @nats-io/services
 * package this registry offers is a prerelease pinned to an older @nats-io/nats-core than the bus
 * uses. It announces a service with no endpoints: Warden's work arrives on streams, not requests.
 */
export function announceService(bus: Bus, log: Logger, o: { readonly name: string; readonly description: string; readonly metadata?: Record<string, string> }): ServiceAnnouncement {
  const identity: ServiceIdentity = { name: o.name, id: newId(), version: WARDEN_VERSION, metadata: { ...o.metadata } };
  const started = new Date().toISOString();
  const answers = {
    PING: () => ({ type: "io.nats.micro.v1.ping_response", ...identity }),
    INFO: () => ({ type: "io.nats.micro.v1.info_response", ...identity, description: o.description, endpoints: [] }),
    STATS: () => ({ type: "io.nats.micro.v1.stats_response", ...identity, started, endpoints: [] }),
  } as const;
  const subs = Object.entries(answers).flatMap(([verb, answer]) =>
    [`$SRV.${verb}`, `$SRV.${verb}.${o.name}`, `$SRV.${verb}.${o.name}.${identity.id}`].map((subject) =>
      bus.nc.subscribe(subject, {
        callback: (err, msg) => {
          if (err) return log.warn({ err, subject }, "service discovery subscription failed");
          if (msg.reply) msg.respond(encodeJson(answer()));
        },
      }),
    ),
  );
  return {
    identity,
    async stop() {
      for (const s of subs) s.unsubscribe();
    },
  };
}

/** Every service that answers discovery within `waitMs`, with its description and metadata. */
export async function discoverServices(bus: Bus, waitMs = 750): Promise<(ServiceIdentity & { readonly description?: string })[]> {
  const found: (ServiceIdentity & { readonly description?: string })[] = [];
  const replies = await bus.nc.requestMany("$SRV.INFO", encodeJson({}), { maxWait: waitMs, strategy: "timer" });
  for await (const m of replies) {
    try {
      const info = m.json<{ name?: unknown; id?: unknown; version?: unknown; description?: unknown; metadata?: unknown }>();
      if (typeof info.name !== "string" || typeof info.id !== "string") continue;
      const metadata = info.metadata !== null && typeof info.metadata === "object" ? (info.metadata as Record<string, string>) : {};
      found.push({ name: info.name, id: info.id, version: typeof info.version === "string" ? info.version : "?", metadata, ...(typeof info.description === "string" ? { description: info.description } : {}) });
    } catch {
      // not a micro service answer: skipped
    }
  }
  return found.sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
}
