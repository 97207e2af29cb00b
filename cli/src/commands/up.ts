import { ConfigError, type Bus } from "@warden/bus";
import { EXAMPLE_SKILLS_DIR, loadManifestDir, loadSkillsDir, type LoadedManifest } from "@warden/adapters";
import { openWardenHome } from "@warden/identity";
import { createRegistryClient } from "@warden/sdk";
import { loadTracingConfig, startTracing, WARDEN_VERSION, type Tracing } from "@warden/service-kit";
import { pino } from "pino";
import type { UP_OPTIONS } from "../command-list.js";
import { busConfig, openBus, wardenHomeDir } from "../connect.js";
import { exampleApprover, upText, type UpSummary } from "../domain/up-text.js";
import { CliError, EXIT_FAILED, EXIT_OK, usageError } from "../errors.js";
import type { Command, CommandIo } from "../io.js";
import { emit } from "../output.js";
import { approverSigningKey, provisionIdentities } from "../up/identities.js";
import { notaryHomeDir, notarySigningKey } from "../up/notary-key.js";
import { checkServerRefusesAnonymous, provisionNats, type ProvisionedNats } from "../up/provision-nats.js";
import { addSkills, provisionTopology } from "../up/provision-topology.js";
import { startServices, type StartedServices } from "../up/start-services.js";

const SERVICES_STOP_MS = 10_000;
const BUS_CLOSE_MS = 3_000;

/**
 * `warden up [--demo] [--nats-port N] [--insecure]`: a secured nats-server (or NATS_URL), every
 * service as its own identity, and the demo, in one process tree until Ctrl-C.
 */
export const upCommand: Command<typeof UP_OPTIONS> = async ({ values }, io) => {
  const demo = values.demo ?? false;
  const insecure = values.insecure ?? false;
  const natsPort = parsePort(values["nats-port"]);
  // services log to stderr, quietly unless LOG_LEVEL says otherwise: stdout is for what to try next
  const preConfig = busConfig({ LOG_LEVEL: "warn", ...io.env });
  const log = pino({ base: { service: "warden" }, level: preConfig.LOG_LEVEL, timestamp: pino.stdTimeFunctions.isoTime }, pino.destination(2));
  // every service of this process shares one tracer provider (docs/operations.md "Tracing")
  const tracingConfig = tracingSettings(io.env);

  const home = openWardenHome(wardenHomeDir(io));
  const approverKey = approverSigningKey(home);
  // the notary's key and head log live outside the home (up/notary-key.ts)
  const notaryKey = notarySigningKey(home, notaryHomeDir(io.env, home.dir));
  if (notaryKey.moved !== undefined) io.err(`warden: ${notaryKey.moved}`);
  const manifestsDir = io.env["WARDEN_MANIFESTS_DIR"];
  const manifests: LoadedManifest[] = manifestsDir ? await loadManifestDir(manifestsDir) : [];
  // the demo shows a skill too: the example refund-check, unless WARDEN_SKILLS_DIR names other skills
  const skillsDir = io.env["WARDEN_SKILLS_DIR"] || (demo ? EXAMPLE_SKILLS_DIR : undefined);
  const skills = skillsDir ? await loadSkillsDir(skillsDir) : [];
  // every identity the README's commands use exists before anything starts
  await provisionIdentities(home, { demo, manifests, skills });

  const buses: Bus[] = [];
  let nats: ProvisionedNats | undefined;
  let services: StartedServices | undefined;
  let tracing: Tracing | undefined;
  // Ctrl-C in a terminal also reaches nats-server, which may be gone before the services drain:
  // each step gets a bounded wait so shutdown always finishes
  const shutdown = async () => {
    await bounded(services?.stop(), SERVICES_STOP_MS, "services", io);
    await bounded(Promise.all(buses.map((b) => b.close())).then(() => undefined), BUS_CLOSE_MS, "the NATS connections", io);
    await nats?.server?.stop();
    await bounded(tracing?.stop(), BUS_CLOSE_MS, "the trace export", io);
  };
  try {
    const endpoint = tracingConfig.OTEL_EXPORTER_OTLP_ENDPOINT;
    if (endpoint !== undefined) tracing = startTracing({ serviceName: tracingConfig.OTEL_SERVICE_NAME ?? "warden-up", serviceVersion: WARDEN_VERSION, endpoint });
    nats = await provisionNats(io, home, natsPort);
    if (nats.server === undefined) {
      const anonymousMayPublish = await checkServerRefusesAnonymous(nats.url);
      if (anonymousMayPublish && !insecure) {
        throw new CliError(
          "FORBIDDEN",
          `the server at ${nats.url} lets an unauthenticated client publish on warden.>: anyone could approve, forge events or rewrite policy. Secure it (docs/security.md) or pass --insecure`,
        );
      }
      if (anonymousMayPublish) io.err(`warden: WARNING: ${nats.url} accepts unauthenticated publishers on warden.>; running with --insecure`);
    }
    const url = nats.url;
    // on a server Warden did not provision and that is not secured, everyone shares the given credentials
    const shared = insecure && nats.server === undefined;
    // every identity was provisioned above (one list of specs: standardIdentities); a name that is not there is a bug
    const connectAs = async (name: string): Promise<Bus> => {
      const entry = home.identity(name);
      if (entry === undefined) throw new Error(`identity ${name} was not provisioned`);
      const creds = shared ? io.env["NATS_CREDS"] : entry.creds;
      const config = busConfig({ LOG_LEVEL: "warn", ...io.env }, { NATS_URL: url, ...(creds ? { NATS_CREDS: creds } : {}) });
      const bus = await openBus(config, `warden-${name}`);
      buses.push(bus);
      return bus;
    };
    // the admin provisions, then its connection closes: no running service holds the admin's rights
    const admin = await connectAs("admin");
    const provisioned = await provisionTopology(admin, { demo });
    const asAdminThenClose = async () => {
      await addSkills(admin, skills);
      buses.splice(buses.indexOf(admin), 1);
      await admin.close();
    };
    const observer = await connectAs("auditor");
    // WARDEN_HEALTH_PORT: one health and metrics endpoint for every service of this process
    const served = busConfig({ LOG_LEVEL: "warn", ...io.env }, { NATS_URL: url });
    services = await startServices({
      observer,
      ...provisioned,
      asAdminThenClose,
      hidden: [home.dir, notaryHomeDir(io.env, home.dir)],
      connectAs,
      log,
      demo,
      approverSigningKeyPem: approverKey.privateKeyPem,
      notarySigningKeyPem: notaryKey.privateKeyPem,
      notaryHeadLogFile: notaryKey.headLogFile,
      approverKeys: home.env().approverPublicKeys,
      manifests,
      skills,
      env: io.env,
      ...(served.WARDEN_HEALTH_PORT === undefined ? {} : { healthPort: served.WARDEN_HEALTH_PORT, healthHost: served.WARDEN_HEALTH_HOST }),
    });
    const tools = await createRegistryClient(observer).list();
    const approver = exampleApprover(services.policy);
    const summary: UpSummary = {
      url,
      home: home.dir,
      startedNats: nats.server !== undefined,
      ...(nats.server ? { storeDir: nats.server.storeDir } : {}),
      services: services.names,
      identities: Object.keys(home.env().identities).sort(),
      demo,
      tools: tools.ok ? [...new Set(tools.value.map((t) => t.descriptor.name))].sort() : [],
      skills: skills.map((s) => s.frontMatter.name).sort(),
      ...(services.policy ? { policyVersion: services.policy.version } : {}),
      ...(services.healthPort === undefined ? {} : { health: `http://${served.WARDEN_HEALTH_HOST === "0.0.0.0" ? "127.0.0.1" : served.WARDEN_HEALTH_HOST}:${services.healthPort}` }),
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

function tracingSettings(env: NodeJS.ProcessEnv): ReturnType<typeof loadTracingConfig> {
  try {
    return loadTracingConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError("INVALID_REQUEST", err.message, EXIT_FAILED);
    throw err;
  }
}

function parsePort(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw usageError(`--nats-port must be a port number (0 picks a free one), not ${JSON.stringify(value)}`);
  return port;
}

async function bounded(step: Promise<void> | undefined, ms: number, what: string, io: CommandIo): Promise<void> {
  if (step === undefined) return;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<"timeout">((done) => (timer = setTimeout(() => done("timeout"), ms)));
  const r = await Promise.race([step.then(() => "done" as const, () => "done" as const), timedOut]);
  clearTimeout(timer);
  if (r === "timeout") io.err(`warden: ${what} did not stop within ${ms} ms; going on`);
}
