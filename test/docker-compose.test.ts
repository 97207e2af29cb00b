import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { knowsSyncInterval, parseNatsServerVersion, renderJetStreamDurability } from "@warden/identity";
import { loadTracingConfig, SERVICE_NODE_OPTIONS } from "@warden/service-kit";

/** No Docker engine runs on CI machines, so the compose file is checked against the tree instead. */
const root = join(import.meta.dirname, "..");

interface ComposeService {
  command?: string[];
  profiles?: string[];
  environment?: Record<string, string>;
  image?: string;
  volumes?: string[];
  ports?: string[];
  healthcheck?: { test?: string[] };
  depends_on?: Record<string, { condition?: string }>;
  user?: string;
}

const compose = parse(readFileSync(join(root, "docker-compose.yml"), "utf8"), { merge: true }) as {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
};
/** The override that runs registry and policy each in its own container. */
const separate = parse(readFileSync(join(root, "deploy/docker-compose.separate.yml"), "utf8"), { merge: true }) as {
  services: Record<string, ComposeService>;
};
/** The process that runs several stages, each as its own identity (cli/src/up/colocated-stages.ts). */
const COLOCATED_ENTRY = "cli/dist/colocated-main.js";
const natsConf = readFileSync(join(root, "deploy/nats-cluster.conf"), "utf8");
/** The configuration without its comments. */
const natsSettings = natsConf
  .split("\n")
  .map((l) => l.replace(/#.*$/, ""))
  .join("\n");

function configSources(): string {
  const files = [
    "libs/bus/src/config.ts",
    ...["registry", "policy", "approver", "executor", "projector", "notary"].map((s) => `services/${s}/src/config.ts`),
    "examples/support-desk/src/config.ts",
    "services/subagent/src/config.ts",
    "services/adapters/src/config.ts",
    // OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_SERVICE_NAME: every service process's tracing
    "libs/service-kit/src/tracing.ts",
    // WARDEN_HOME: where CLI commands find keys, credentials and env.json
    "cli/src/connect.ts",
    // WARDEN_<STAGE>_NATS_CREDS: each stage's credentials in the colocated process
    "cli/src/up/colocated-stages.ts",
    // WARDEN_MCP_TOKEN: the bearer token of `warden mcp --http`
    "cli/src/commands/mcp.ts",
    // WARDEN_NOTARY_HOME: where provisioning keeps the notary's key
    "cli/src/up/notary-key.ts",
  ];
  return files.filter((f) => existsSync(join(root, f))).map((f) => readFileSync(join(root, f), "utf8")).join("\n");
}

const services = Object.entries(compose.services);
const natsNodes = services.filter(([, s]) => s.image?.startsWith("nats:"));
/** Containers that run Warden services (the CLI's one-shot steps are not services). */
const isWarden = (s: ComposeService) => s.command?.[0] === "node" && (!s.command[1]?.startsWith("cli/") || s.command[1] === COLOCATED_ENTRY);
const wardens = services.filter(([, s]) => isWarden(s));
/** The CLI commands that serve as one identity until stopped: clients of Warden, not services. */
const CLIENT_COMMANDS = ["inbox", "mcp"];
const isClient = (s: ComposeService) => s.command?.[1] === "cli/dist/main.js" && CLIENT_COMMANDS.includes(s.command[2] ?? "");
const clients = services.filter(([, s]) => isClient(s));
/** Containers that run a one-shot `warden` CLI step: provisioning and topology. */
const cliSteps = services.filter(([, s]) => s.command?.[0] === "node" && s.command[1]?.startsWith("cli/") && !isWarden(s) && !isClient(s));
/** The value of `--flag` in a command line. */
const optionOf = (s: ComposeService, flag: string): string | undefined => {
  const i = s.command?.indexOf(flag) ?? -1;
  return i < 0 ? undefined : s.command?.[i + 1];
};

/**
 * The identities a container connects as, each with its credentials file: NATS_CREDS, or in the
 * colocated process one WARDEN_<STAGE>_NATS_CREDS per stage it runs.
 */
function identitiesOf(name: string, s: ComposeService): { identity: string; creds: string | undefined }[] {
  // a client acts as the identity it names with --as (the CLI refuses credentials of anyone else)
  if (isClient(s)) return [{ identity: optionOf(s, "--as") ?? name, creds: s.environment?.["NATS_CREDS"] }];
  if (s.command?.[1] !== COLOCATED_ENTRY) return [{ identity: name, creds: s.environment?.["NATS_CREDS"] }];
  return s.command.slice(2).map((stage) => ({ identity: stage, creds: s.environment?.[`WARDEN_${stage.toUpperCase()}_NATS_CREDS`] }));
}
const EXECUTORS = ["adapters", "subagent", "support-desk"];

/** `volume:/target[:ro]` split; named volumes only (no path in the source). */
function mounts(s: ComposeService): { source: string; target: string; readOnly: boolean; named: boolean }[] {
  return (s.volumes ?? []).map((v) => {
    const [source = "", target = "", mode] = v.split(":");
    return { source, target, readOnly: mode === "ro", named: !source.startsWith(".") && !source.startsWith("/") };
  });
}

/** The named volume mounted read-only that holds `file`, if any. */
function volumeHolding(s: ComposeService, file: string): string | undefined {
  return mounts(s).find((m) => m.named && m.readOnly && file.startsWith(`${m.target}/`))?.source;
}

describe("docker-compose.yml", () => {
  it("runs a three-node NATS cluster with JetStream and streams at three replicas", () => {
    expect(natsNodes).toHaveLength(3);
    expect(natsSettings).toMatch(/jetstream\s*{/);
    expect(natsSettings).toMatch(/cluster\s*{[^}]*include\s+\.\/auth\/cluster\.conf/);
    // the routes (with the route secret) come from provisioning: one per node
    const provision = compose.services["provision"]!.command!;
    const routes = provision[provision.indexOf("--routes") + 1]!.split(",");
    expect(routes.sort()).toEqual(natsNodes.map(([name]) => `${name}:6222`).sort());
    for (const [, s] of [...wardens, ...cliSteps.filter(([name]) => name !== "provision")]) {
      expect(s.environment?.["WARDEN_REPLICAS"]).toBe("3");
    }
  });

  it("has one container per Warden service, each running an entry point that exists in the tree", () => {
    // registry and policy share a process by default (deploy/docker-compose.separate.yml splits them)
    expect(wardens.map(([name]) => name).sort()).toEqual(["adapters", "approver", "notary", "projector", "registry-policy", "subagent", "support-desk"]);
    expect(compose.services["registry-policy"]?.command?.slice(2)).toEqual(["registry", "policy"]);
    for (const [, s] of wardens) {
      const entry = s.command![1]!;
      const source = entry.replace("/dist/", "/src/").replace(/\.js$/, ".ts");
      expect(existsSync(join(root, source)), `${source} for ${entry}`).toBe(true);
    }
  });

  it("runs every Warden service with the heap bound (SERVICE_NODE_OPTIONS), and no CLI step", () => {
    for (const [name, s] of wardens) expect(s.environment?.["NODE_OPTIONS"], name).toBe(SERVICE_NODE_OPTIONS);
    for (const [name, s] of cliSteps) expect(s.environment?.["NODE_OPTIONS"], name).toBeUndefined();
  });

  it("names only environment variables that some config schema reads", () => {
    const sources = configSources();
    for (const [name, s] of services) {
      for (const key of Object.keys(s.environment ?? {})) {
        // a NATS node's only setting by environment is its Go runtime's soft memory limit
        if (natsNodes.some(([node]) => node === name) && key === "GOMEMLIMIT") continue;
        // Node's own: the heap bound of a Warden service (checked below)
        if (key === "NODE_OPTIONS") continue;
        expect(sources.includes(key), `${name}: ${key}`).toBe(true);
      }
    }
  });
});

describe("docker-compose.yml: authentication", () => {
  it("runs the servers in operator mode with a full resolver and no anonymous user", () => {
    expect(natsSettings).toMatch(/include\s+\.\/auth\/auth\.conf/);
    expect(natsSettings).toMatch(/resolver\s*{[^}]*type:\s*full/);
    expect(natsSettings).not.toMatch(/no_auth_user/);
    // clients authenticate with user JWTs only: no static users, tokens or accounts in the file
    expect(natsSettings).not.toMatch(/^\s*(authorization|accounts)\s*[:{]/m);
    const controlLine = Number(/max_control_line:\s*(\d+)/.exec(natsSettings)?.[1]);
    expect(controlLine).toBeGreaterThanOrEqual(32768);
    // the store's durability comes from provisioning, for the nodes' release (below)
    expect(natsSettings).toMatch(/jetstream\s*{[^}]*include\s+\.\/auth\/jetstream\.conf/);
    expect(natsSettings).not.toMatch(/sync_interval/);
    // monitoring only on the container's loopback
    expect(natsSettings).toMatch(/^http:\s*127\.0\.0\.1:8222/m);
  });

  it("provisions the JetStream durability for the nodes' nats image: sync_interval always, as production needs", () => {
    const tags = new Set(natsNodes.map(([, s]) => s.image!.replace(/^nats:/, "")));
    expect(tags.size, "every node runs the same release").toBe(1);
    const tag = parseNatsServerVersion([...tags][0]!);
    const provision = compose.services["provision"]!;
    const flag = parseNatsServerVersion(optionOf(provision, "--nats-version") ?? "");
    expect(flag, "provision is told the nodes' release").toBeDefined();
    expect({ major: flag!.major, minor: flag!.minor }).toEqual({ major: tag!.major, minor: tag!.minor });
    expect(knowsSyncInterval(flag!)).toBe(true);
    expect(renderJetStreamDurability(flag!, "from --nats-version")).toMatch(/^sync_interval: always$/m);
  });

  it("gives every NATS node the provisioned auth files read-only, a named JetStream volume and a healthcheck", () => {
    for (const [name, s] of natsNodes) {
      // docs/performance.md: without a soft limit a server keeps 2-4 times its live state after a burst
      expect(s.environment?.["GOMEMLIMIT"], `${name}: GOMEMLIMIT`).toMatch(/^\$\{WARDEN_NATS_GOMEMLIMIT:-\d+[KMG]iB\}$/);
      const m = mounts(s);
      expect(m.find((v) => v.target === "/etc/nats/auth"), name).toMatchObject({ source: "nats-auth", readOnly: true });
      expect(m.find((v) => v.target === "/etc/nats/cluster.conf"), name).toMatchObject({ readOnly: true });
      const data = m.find((v) => v.target === "/data");
      expect(data?.named, `${name}: /data is a named volume`).toBe(true);
      expect(Object.keys(compose.volumes ?? {})).toContain(data!.source);
      expect(s.healthcheck?.test?.join(" "), name).toMatch(/healthz/);
      expect(s.depends_on?.["provision"]?.condition).toBe("service_completed_successfully");
    }
  });

  it("publishes no port but nats-1's client port (and the optional Prometheus and collector), on the loopback only", () => {
    const published = services.flatMap(([name, s]) => (s.ports ?? []).map((p) => `${name} ${p}`));
    expect(published).toEqual([
      "nats-1 127.0.0.1:4222:4222",
      "inbox 127.0.0.1:8080:8080",
      "mcp 127.0.0.1:8765:8765",
      "prometheus 127.0.0.1:9090:9090",
      "otel-collector 127.0.0.1:4318:4318",
    ]);
  });

  it("gives every Warden service OTEL_EXPORTER_OTLP_ENDPOINT from WARDEN_OTLP_ENDPOINT, empty by default, which leaves tracing off", () => {
    for (const [name, s] of wardens) expect(s.environment?.["OTEL_EXPORTER_OTLP_ENDPOINT"], name).toBe("${WARDEN_OTLP_ENDPOINT:-}");
    // what a service reads when the variable is unset: an empty value, the same as none
    expect(loadTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "" })).toEqual({});
    // the one-shot CLI steps do not trace
    for (const [name, s] of cliSteps) expect(s.environment?.["OTEL_EXPORTER_OTLP_ENDPOINT"], name).toBeUndefined();
  });

  it("has an optional OpenTelemetry Collector (profile observability) receiving OTLP/HTTP where the services are told to send it", () => {
    const collector = compose.services["otel-collector"]!;
    expect(collector.profiles).toEqual(["observability"]);
    expect(collector.image).toMatch(/^otel\/opentelemetry-collector:\d+\.\d+\.\d+$/);
    const configFile = collector.command?.find((a) => a.startsWith("--config="))?.slice("--config=".length);
    const mounted = mounts(collector).find((m) => m.target === configFile);
    expect(mounted, `${configFile} is mounted`).toMatchObject({ readOnly: true, named: false });
    const config = parse(readFileSync(join(root, mounted!.source), "utf8")) as {
      receivers: { otlp?: { protocols?: { http?: { endpoint?: string } } } };
      exporters: Record<string, unknown>;
      service: { pipelines: { traces?: { receivers: string[]; exporters: string[] } } };
    };
    // on every interface of its container, on the port the compose file's comment tells services to use
    expect(config.receivers.otlp?.protocols?.http?.endpoint).toBe("0.0.0.0:4318");
    expect(readFileSync(join(root, "docker-compose.yml"), "utf8")).toContain("WARDEN_OTLP_ENDPOINT=http://otel-collector:4318");
    const traces = config.service.pipelines.traces!;
    expect(traces.receivers).toEqual(["otlp"]);
    for (const exporter of traces.exporters) expect(Object.keys(config.exporters)).toContain(exporter);
  });

  it("gives every Warden service a health port its healthcheck reads, and Prometheus scrapes each of them", () => {
    const scraped = readFileSync(join(root, "deploy/prometheus.yml"), "utf8");
    for (const [name, s] of wardens) {
      expect(s.environment?.["WARDEN_HEALTH_PORT"], name).toBe("9464");
      expect(s.environment?.["WARDEN_HEALTH_HOST"], name).toBe("0.0.0.0");
      expect(s.healthcheck?.test?.join(" "), name).toContain("http://127.0.0.1:9464/readyz");
      expect(scraped, name).toContain(`- ${name}:9464`);
    }
    expect(configSources()).toContain("WARDEN_HEALTH_PORT");
  });

  it("connects every Warden container with its own credentials, mounted read-only from a volume no one else mounts", () => {
    const connecting = [...wardens, ...clients, ...cliSteps.filter(([name]) => name !== "provision")];
    const owners = new Map<string, string>();
    for (const [name, s] of connecting) {
      for (const { identity, creds } of identitiesOf(name, s)) {
        expect(creds, `${name} has credentials for ${identity}`).toBeDefined();
        const volume = volumeHolding(s, creds!);
        expect(volume, `${name}: ${creds} is on a read-only named volume`).toBeDefined();
        expect(owners.get(volume!), `${volume} is mounted by ${owners.get(volume!)} and ${name}`).toBeUndefined();
        owners.set(volume!, name);
      }
    }
    for (const [name, s] of services.filter(([n]) => n !== "provision")) {
      const keys = mounts(s).filter((m) => m.source === "warden-home");
      expect(keys, `${name} must not see the trust root`).toEqual([]);
    }
  });

  it("provisions each service's identity folder under its own name, and the topology as the admin", () => {
    const provision = compose.services["provision"]!;
    expect(provision.command?.slice(1, 5)).toEqual(["cli/dist/main.js", "provision", "--out", "/warden"]);
    const written = new Map(mounts(provision).map((m) => [m.source, m.target]));
    expect(written.get("warden-home")).toBe("/warden");
    expect(written.get("nats-auth")).toBe("/warden/server");
    for (const [name, s] of [...wardens, ...clients]) {
      for (const { identity, creds } of identitiesOf(name, s)) {
        const volume = volumeHolding(s, creds!);
        expect(written.get(volume!), `${name}'s credentials for ${identity} come from provisioning`).toBe(`/warden/identities/${identity}`);
      }
      expect(s.depends_on?.["topology"]?.condition, name).toBe("service_completed_successfully");
    }
    // the notary's key is kept where the next provisioning run finds it (else each `up` would mint
    // and pin a new one), in the volume only the notary mounts besides provisioning
    const notaryHome = provision.environment?.["WARDEN_NOTARY_HOME"];
    expect(notaryHome).toBe(written.get("id-notary"));
    expect(compose.services["notary"]!.environment?.["WARDEN_NOTARY_SIGNING_KEY_FILE"]).toBe("/run/warden/notary.pem");
    const topology = compose.services["topology"]!;
    expect(written.get(volumeHolding(topology, topology.environment!["NATS_CREDS"]!)!)).toBe("/warden/identities/admin");
    for (const [node] of natsNodes) expect(topology.depends_on?.[node]?.condition).toBe("service_healthy");
  });

  it("pins the approver's key: the approver signs with its provisioned key, every executor verifies against the provisioned public keys", () => {
    const approver = compose.services["approver"]!;
    const signing = approver.environment?.["WARDEN_APPROVER_SIGNING_KEY_FILE"];
    expect(signing && volumeHolding(approver, signing)).toBeDefined();
    for (const name of EXECUTORS) {
      const s = compose.services[name]!;
      const keys = s.environment?.["WARDEN_APPROVER_PUBLIC_KEYS_FILE"];
      expect(keys, `${name} pins approver keys`).toBeDefined();
      expect(volumeHolding(s, keys!), name).toBe(volumeHolding(s, s.environment!["NATS_CREDS"]!));
    }
  });
});

describe("docker-compose.yml: the inbox and the MCP server", () => {
  it("runs alice's web inbox and an MCP server acting as support-bot, with options the CLI has, after the topology", () => {
    expect(clients.map(([name]) => name).sort()).toEqual(["inbox", "mcp"]);
    expect(compose.services["inbox"]?.command?.slice(2)).toEqual(["inbox", "--as", "alice", "--host", "0.0.0.0", "--port", "8080"]);
    expect(compose.services["mcp"]?.command?.slice(2)).toEqual(["mcp", "--as", "support-bot", "--http", "--host", "0.0.0.0", "--port", "8765"]);
    for (const [name, s] of clients) {
      const help = execFileSync(process.execPath, [join(root, "cli/dist/main.js"), s.command![2]!, "--help"], { encoding: "utf8" });
      for (const flag of s.command!.filter((a) => a.startsWith("--"))) expect(help, `${name}: ${flag}`).toContain(flag);
      expect(s.depends_on?.["topology"]?.condition, name).toBe("service_completed_successfully");
      // a client creates nothing and serves no health port; it never sees the trust root
      expect(s.environment?.["WARDEN_REPLICAS"], name).toBeUndefined();
      expect(s.environment?.["NATS_URL"], name).toBe(compose.services["approver"]!.environment!["NATS_URL"]);
    }
  });

  it("publishes each on the host's loopback at the port it listens on (the inbox answers only requests addressed to 127.0.0.1:PORT)", () => {
    for (const [name, s] of clients) {
      const port = optionOf(s, "--port");
      expect(s.ports, name).toEqual([`127.0.0.1:${port}:${port}`]);
      // every interface of the container, so the published port reaches it
      expect(optionOf(s, "--host"), name).toBe("0.0.0.0");
    }
    // no fixed token in the file: the operator's WARDEN_MCP_TOKEN, or one made per run
    expect(compose.services["mcp"]!.environment?.["WARDEN_MCP_TOKEN"]).toBe("${WARDEN_MCP_TOKEN:-}");
  });
});

describe("deploy/docker-compose.separate.yml", () => {
  it("turns the shared registry+policy process off and runs each of them in a container of its own, set up as the base file sets up a service", () => {
    // a profile no one asks for keeps the colocated container from starting
    expect(separate.services["registry-policy"]).toEqual({ profiles: ["colocated"] });
    const scraped = readFileSync(join(root, "deploy/prometheus.yml"), "utf8");
    const approver = compose.services["approver"]!;
    for (const name of ["registry", "policy"]) {
      const s = separate.services[name]!;
      expect(s.command, name).toEqual(["node", `services/${name}/dist/main.js`]);
      expect(existsSync(join(root, `services/${name}/src/main.ts`))).toBe(true);
      expect(s.image).toBe(compose.services["registry-policy"]!.image);
      // what x-warden and x-otlp give every service of the base file
      expect(s.healthcheck, name).toEqual(approver.healthcheck);
      expect(s.depends_on, name).toEqual(approver.depends_on);
      for (const key of ["OTEL_EXPORTER_OTLP_ENDPOINT", "NATS_URL", "WARDEN_REPLICAS", "WARDEN_HEALTH_PORT", "WARDEN_HEALTH_HOST"]) {
        expect(s.environment?.[key], `${name}: ${key}`).toBe(approver.environment?.[key]);
      }
      // its own identity: the same provisioned volume the shared process mounts for that stage
      expect(volumeHolding(s, s.environment!["NATS_CREDS"]!), name).toBe(`id-${name}`);
      expect(mounts(s)).toHaveLength(1);
      expect(scraped, name).toContain(`- ${name}:9464`);
    }
  });
});
