import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Bus, Logger } from "@warden/bus";
import type { ServiceMetrics } from "./service-metrics.js";

/** Where a process serves `/healthz`, `/readyz` and `/metrics`. */
export interface HealthServer {
  readonly port: number;
  /** The service has started (its consumers run): `/readyz` answers 200 while the bus is connected too. */
  markStarted(): void;
  /** The process is draining: `/readyz` answers 503 from now on. */
  markStopping(): void;
  stop(): Promise<void>;
}

export interface HealthServerOptions {
  readonly bus: Bus;
  readonly log: Logger;
  readonly metrics: ServiceMetrics;
  /** 0 picks a free port. */
  readonly port: number;
  /** @default "127.0.0.1" (in a container: 0.0.0.0, for the orchestrator's probes) */
  readonly host?: string;
}

/**
 * Health and metrics over HTTP, for Kubernetes probes, docker healthchecks and Prometheus:
 * `/healthz` is 200 while the process runs (liveness); `/readyz` is 200 once the service started
 * and while its NATS connection is up, else 503 with the reason (readiness); `/metrics` is the
 * Prometheus text of {@link ServiceMetrics}. Read-only: nothing here changes the service.
 */
export async function startHealthServer(o: HealthServerOptions): Promise<HealthServer> {
  let started = false;
  let stopping = false;
  let connected = !o.bus.nc.isClosed();
  void (async () => {
    for await (const s of o.bus.nc.status()) {
      if (s.type === "disconnect") connected = false;
      else if (s.type === "reconnect") connected = true;
    }
  })().catch((err: unknown) => o.log.warn({ err }, "connection status watch ended"));

  const unready = (): string | undefined => {
    if (stopping) return "stopping";
    if (!started) return "starting";
    if (o.bus.nc.isClosed()) return "the NATS connection is closed";
    if (!connected) return "NATS is unreachable (reconnecting)";
    return undefined;
  };
  const json = (res: ServerResponse, status: number, body: unknown) =>
    void res.writeHead(status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" }).end(JSON.stringify(body));

  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    if (req.method !== "GET" && req.method !== "HEAD") return json(res, 405, { ok: false, error: "only GET" });
    if (path === "/healthz") return json(res, 200, { ok: true });
    if (path === "/readyz") {
      const reason = unready();
      return reason === undefined ? json(res, 200, { ok: true }) : json(res, 503, { ok: false, reason });
    }
    if (path === "/metrics") {
      o.metrics.scrape().then(
        (m) => void res.writeHead(200, { "content-type": m.contentType }).end(m.body),
        (err: unknown) => {
          o.log.warn({ err }, "metrics scrape failed");
          json(res, 500, { ok: false, error: "metrics could not be collected" });
        },
      );
      return;
    }
    json(res, 404, { ok: false, error: `no ${path} here: /healthz, /readyz, /metrics` });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port, o.host ?? "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  o.log.info({ port, host: o.host ?? "127.0.0.1" }, "health and metrics served");
  return {
    port,
    markStarted: () => void (started = true),
    markStopping: () => void (stopping = true),
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
