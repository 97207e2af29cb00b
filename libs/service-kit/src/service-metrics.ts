import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import { type Bus, type BusObserver, type Logger } from "@warden/bus";
import { type WardenEvent } from "@warden/contracts/events";
import { STREAM_CALLS, STREAM_DLQ } from "@warden/contracts/subjects";

/**
 * One process's Prometheus metrics (prom-client): what its stages handled and how long it took,
 * what it appended, dead letters, the lag of the durables it consumes and the DLQ's size (read
 * when scraped), the process's own (CPU, memory, event loop), and any gauge a service adds.
 * Metric names are listed in docs/operations.md.
 */
export interface ServiceMetrics {
  readonly registry: Registry;
  /** Set with `observeBus(metrics.observer)`: counts every stage message and append of the process. */
  readonly observer: BusObserver;
  /** A gauge read when scraped, e.g. the approvals waiting for a person. */
  gauge(name: string, help: string, read: () => number | Promise<number>): void;
  /** The exposition text and its content type. */
  scrape(): Promise<{ readonly contentType: string; readonly body: string }>;
}

const HANDLE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** What an appended event says about a call, as a metric label: a decision, an outcome, a refusal's code. */
export function resultOf(event: WardenEvent): string {
  switch (event.type) {
    case "ToolPolicyChecked":
      return event.data.decision;
    case "ToolCallFinished":
    case "ToolCallLateResult":
      return event.data.ok ? "ok" : (event.data.error?.code ?? "error");
    case "ToolCallRejected":
      return event.data.error.code;
    case "ToolCallCancelled":
      return event.data.as;
    default:
      return "";
  }
}

export function createServiceMetrics(o: { readonly service: string; readonly bus: Bus; readonly log: Logger }): ServiceMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service: o.service });
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const messages = new Counter({
    name: "warden_stage_messages_total",
    help: "Events a stage handled, by how it settled them (ack, retry, poison, exhausted)",
    labelNames: ["stage", "event_type", "tool", "outcome"],
    registers,
  });
  const handling = new Histogram({ name: "warden_stage_handle_seconds", help: "How long a stage's handler took per event", labelNames: ["stage"], buckets: HANDLE_BUCKETS, registers });
  const deadLetters = new Counter({ name: "warden_stage_dead_letters_total", help: "Messages a stage terminated to WARDEN_DLQ", labelNames: ["stage"], registers });
  const written = new Counter({
    name: "warden_events_written_total",
    help: "Events this process appended to WARDEN_CALLS, by type, tool and result (a decision, an outcome's error code)",
    labelNames: ["type", "tool", "result"],
    registers,
  });
  const already = new Counter({ name: "warden_events_already_written_total", help: "Appends that found their slot taken (a redelivery, or another writer first)", labelNames: ["type"], registers });

  const durables = new Set<string>();
  const consumerInfo = async () =>
    Promise.all(
      [...durables].map(async (d) => {
        try {
          return { durable: d, info: await o.bus.jsm.consumers.info(STREAM_CALLS, d) };
        } catch (err) {
          o.log.debug({ err, durable: d }, "consumer info unreadable for metrics");
          return { durable: d, info: undefined };
        }
      }),
    );
  new Gauge({
    name: "warden_consumer_pending_messages",
    help: "Messages of a durable this process consumes not yet delivered (its lag)",
    labelNames: ["durable"],
    registers,
    async collect() {
      this.reset();
      for (const { durable, info } of await consumerInfo()) if (info !== undefined) this.set({ durable }, info.num_pending);
    },
  });
  new Gauge({
    name: "warden_consumer_ack_pending_messages",
    help: "Messages of a durable this process consumes delivered and not yet acknowledged",
    labelNames: ["durable"],
    registers,
    async collect() {
      this.reset();
      for (const { durable, info } of await consumerInfo()) if (info !== undefined) this.set({ durable }, info.num_ack_pending);
    },
  });
  new Gauge({
    name: "warden_dlq_messages",
    help: "Messages in WARDEN_DLQ (every stage's dead letters)",
    registers,
    async collect() {
      try {
        this.set((await o.bus.jsm.streams.info(STREAM_DLQ)).state.messages);
      } catch (err) {
        o.log.debug({ err }, "dlq size unreadable for metrics");
      }
    },
  });

  const observer: BusObserver = {
    stageStarted: (durable) => void durables.add(durable),
    stageHandled: (h) => {
      messages.inc({ stage: h.stage, event_type: h.eventType, tool: h.tool, outcome: h.outcome });
      handling.observe({ stage: h.stage }, h.seconds);
    },
    deadLettered: (d) => deadLetters.inc({ stage: d.stage }),
    appended: (event, status) => {
      if (status === "written") written.inc({ type: event.type, tool: event.tool, result: resultOf(event) });
      else already.inc({ type: event.type });
    },
  };

  return {
    registry,
    observer,
    gauge(name, help, read) {
      new Gauge({
        name,
        help,
        registers,
        async collect() {
          this.set(await read());
        },
      });
    },
    async scrape() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}
