import { ensureTopology, type Bus } from "@warden/bus";
import { listTools } from "@warden/registry";
import { pino } from "pino";
import { JSON_OPTION, parseCommandArgs } from "../args.js";
import { busConfig, openBus } from "../connect.js";
import { exampleApprover, upText, type UpSummary } from "../domain/up-text.js";
import { EXIT_OK, usageError } from "../errors.js";
import type { Command, CommandIo } from "../io.js";
import { emit } from "../output.js";
import { provisionNats, type ProvisionedNats } from "../up/provision-nats.js";
import { startServices, type StartedServices } from "../up/start-services.js";

const OPTIONS = { ...JSON_OPTION, demo: { type: "boolean" } } as const;
const SERVICES_STOP_MS = 10_000;
const BUS_CLOSE_MS = 3_000;

/** `warden up [--demo]`: NATS, the services (and the demo) in one process tree until Ctrl-C. */
export const upCommand: Command = async (argv, io) => {
  const { values, positionals } = parseCommandArgs(argv, OPTIONS);
  if (positionals.length > 0) throw usageError(`unexpected arguments: ${positionals.join(" ")}`);
  const demo = values.demo ?? false;
  // services log to stderr, quietly unless LOG_LEVEL says otherwise: stdout is for what to try next
  const preConfig = busConfig({ LOG_LEVEL: "warn", ...io.env });
  const log = pino({ base: { service: "warden" }, level: preConfig.LOG_LEVEL, timestamp: pino.stdTimeFunctions.isoTime }, pino.destination(2));

  let nats: ProvisionedNats | undefined;
  let bus: Bus | undefined;
  let services: StartedServices | undefined;
  // Ctrl-C in a terminal also reaches nats-server, which may be gone before the services drain:
  // each step gets a bounded wait so shutdown always finishes
  const shutdown = async () => {
    await bounded(services?.stop(), SERVICES_STOP_MS, "services", io);
    await bounded(bus?.close(), BUS_CLOSE_MS, "the NATS connection", io);
    await nats?.server?.stop();
  };
  try {
    nats = await provisionNats(io);
    const config = busConfig({ LOG_LEVEL: "warn", ...io.env }, { NATS_URL: nats.url });
    bus = await openBus(config, "warden-up");
    await ensureTopology(bus);
    services = await startServices(bus, log, demo, io.env);
    const tools = await listTools(bus);
    const approver = exampleApprover(services.policy);
    const summary: UpSummary = {
      url: nats.url,
      startedNats: nats.server !== undefined,
      ...(nats.server ? { storeDir: nats.server.storeDir } : {}),
      services: services.names,
      demo,
      tools: tools.ok ? [...new Set(tools.value.map((t) => t.descriptor.name))].sort() : [],
      ...(services.policy ? { policyVersion: services.policy.version } : {}),
      ...(approver ? { approver } : {}),
    };
    emit(io, values.json ?? false, { ok: true, ...summary }, () => upText(summary));
  } catch (err) {
    await shutdown();
    throw err;
  }
  const signal = await io.stopSignal();
  io.err(`warden: ${signal} received, draining`);
  await shutdown();
  io.err("warden: stopped");
  return EXIT_OK;
};

async function bounded(step: Promise<void> | undefined, ms: number, what: string, io: CommandIo): Promise<void> {
  if (step === undefined) return;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<"timeout">((done) => (timer = setTimeout(() => done("timeout"), ms)));
  const r = await Promise.race([step.then(() => "done" as const, () => "done" as const), timedOut]);
  clearTimeout(timer);
  if (r === "timeout") io.err(`warden: ${what} did not stop within ${ms} ms; going on`);
}
