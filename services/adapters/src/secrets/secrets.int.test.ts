import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createAgentClient, createRegistryClient, type AgentClient } from "@warden/sdk";
import {
  FIXTURES,
  MCP_EVERYTHING,
  NODE,
  rawArtifacts,
  rawCallsStream,
  useAdaptersWarden,
  tempDir,
  TEST_POLICY,
  writeManifest,
} from "../../test/harness.js";
import { readToolEntry } from "../../test/manifest-entries.js";
import { useLocalHttp } from "../../test/local-http.js";

const CLI_SECRET = `cli-${randomBytes(12).toString("hex")}`;
const HTTP_SECRET = `http-${randomBytes(12).toString("hex")}`;
const MCP_SECRET = `mcp-${randomBytes(12).toString("hex")}`;
const ALL = [CLI_SECRET, HTTP_SECRET, MCP_SECRET];

describe("secrets: injected at run time, never recorded", () => {
  const w = useAdaptersWarden(TEST_POLICY);
  let agent: AgentClient;
  const authorizations: string[] = [];

  const http = useLocalHttp((req, res) => {
    const auth = req.headers.authorization ?? "";
    authorizations.push(auth);
    if (req.url === "/deny") return void res.writeHead(403, { "content-type": "text/plain" }).end(`no entry for ${auth}`);
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ youSent: auth }));
  });

  beforeAll(async () => {
    const dir = tempDir("secrets");
    const secretsFile = join(dir, "secrets.yaml");
    writeFileSync(secretsFile, `http_token: ${HTTP_SECRET}\n`);
    const manifest = await writeManifest(dir, "vault.yaml", {
      domain: "vault",
      secrets: [
        { name: "cli_token", env: "VAULT_CLI_TOKEN" },
        { name: "http_token", file: "http_token" },
        { name: "missing_token", env: "VAULT_NOT_SET" },
      ],
      tools: [
        readToolEntry("print", "Use to print the token many times, on stdout and stderr.", {
          cli: { command: NODE, argv: [join(FIXTURES, "big-output.mjs"), "API_TOKEN", "400"], roots: ["."], output: "jsonl" },
          secrets: [{ secret: "cli_token", env: "API_TOKEN" }],
        }),
        readToolEntry("fail", "Use to fail while printing the token on stderr.", {
          cli: { command: NODE, argv: ["-e", "process.stderr.write('bad token ' + process.env.API_TOKEN); process.exit(2)"], roots: ["."] },
          secrets: [{ secret: "cli_token", env: "API_TOKEN" }],
        }),
        readToolEntry("whoami", "Use to see what the API sees of our credentials.", {
          http: { url: `${http.base}/echo`, allowHosts: ["127.0.0.1"] },
          secrets: [{ secret: "http_token", header: "Authorization", prefix: "Bearer " }],
        }),
        readToolEntry("denied", "Use to call an endpoint that refuses us and quotes our credentials.", {
          http: { url: `${http.base}/deny`, allowHosts: ["127.0.0.1"] },
          secrets: [{ secret: "http_token", header: "Authorization", prefix: "Bearer " }],
        }),
        readToolEntry("unset", "Use to run a command whose secret is not configured.", {
          cli: { command: NODE, argv: ["-e", ""], roots: ["."] },
          secrets: [{ secret: "missing_token", env: "T" }],
        }),
      ],
    });
    const everything = await writeManifest(dir, "vaultmcp.yaml", {
      domain: "vaultmcp",
      secrets: [{ name: "mcp_token", env: "VAULT_MCP_TOKEN" }],
      mcp: { transport: "stdio", command: NODE, args: [MCP_EVERYTHING, "stdio"], include: ["get-env"], secrets: [{ secret: "mcp_token", env: "EVERYTHING_TOKEN" }] },
    });
    // the adapters run as the executor identity of their two domains, the agent as itself
    await w.startAdapters([manifest, everything], { env: { VAULT_CLI_TOKEN: CLI_SECRET, VAULT_MCP_TOKEN: MCP_SECRET }, secretsFile });
    const enabled = await createRegistryClient(w.bus).setStatus({ name: "vaultmcp.get-env", status: "enabled" });
    if (!enabled.ok) throw new Error(enabled.error.message);
    agent = createAgentClient({ bus: await w.agentBus("agent"), principal: "agent", mode: "plan", timeoutMs: 15_000 });
  });
  it("injects a CLI secret as an environment variable and redacts it from stdout, stderr and the artifact", async () => {
    const r = await agent.call("vault.print", {});
    expect(r).toMatchObject({ ok: true, truncated: true });
    expect(JSON.stringify(r.data)).toContain("[REDACTED:cli_token]");
    expect(r.artifacts).toHaveLength(1);
    const failed = await agent.call("vault.fail", {});
    expect(failed).toMatchObject({ ok: false, error: { message: expect.stringContaining("bad token [REDACTED:cli_token]"), details: { exitCode: 2 } } });
  });

  it("injects an HTTP secret from the secrets file as a header and redacts it from bodies and error details", async () => {
    const r = await agent.call("vault.whoami", {});
    expect(r).toMatchObject({ ok: true, data: { body: { youSent: "Bearer [REDACTED:http_token]" } } });
    expect(authorizations).toContain(`Bearer ${HTTP_SECRET}`);
    const denied = await agent.call("vault.denied", {});
    expect(denied).toMatchObject({ ok: false, error: { details: { status: 403, body: "no entry for Bearer [REDACTED:http_token]" } } });
  });

  it("injects an MCP server's secret into its environment and redacts it from what its tools return", async () => {
    const r = await agent.call("vaultmcp.get-env", {});
    expect(r).toMatchObject({ ok: true });
    const text = JSON.stringify(r.data);
    expect(text).toContain("EVERYTHING_TOKEN");
    expect(text).toContain("[REDACTED:mcp_token]");
  });

  it("fails a call whose secret is not configured with a message naming the secret", async () => {
    expect(await agent.call("vault.unset", {})).toMatchObject({
      ok: false,
      error: { code: "HANDLER_ERROR", message: "secret missing_token is unavailable: environment variable VAULT_NOT_SET is not set" },
    });
  });

  it("leaves no secret value in WARDEN_CALLS, the object store, the logs or a ToolView", async () => {
    const calls = await rawCallsStream(w.bus);
    const artifacts = await rawArtifacts(w.bus);
    const logs = w.logs();
    // the view alice gets when she asks for it herself
    const view = await createRegistryClient(await w.humanBus("alice")).view({ principal: "alice", mode: "human", format: "mcp", explain: true });
    expect(view.ok).toBe(true);
    // the scans must have something to look at, or they would pass vacuously
    expect(calls).toContain("[REDACTED:cli_token]");
    expect(calls).toContain("[REDACTED:http_token]");
    expect(calls).toContain("[REDACTED:mcp_token]");
    expect(artifacts.names.length).toBeGreaterThan(0);
    expect(artifacts.text).toContain("[REDACTED:cli_token]");
    expect(logs).toContain("running command");
    for (const secret of ALL) {
      for (const [where, text] of [["WARDEN_CALLS", calls], ["object store", artifacts.text], ["logs", logs], ["ToolView", JSON.stringify(view)]] as const) {
        expect(text.includes(secret), `${where} holds a secret`).toBe(false);
        expect(text.includes(Buffer.from(secret).toString("base64")), `${where} holds a secret in base64`).toBe(false);
      }
    }
  });
});
