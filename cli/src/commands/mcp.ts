import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { identityOfCreds, type BusConfig } from "@warden/bus";
import { createWardenMcpSession, startMcpHttpServer, type WardenMcpSessionOptions } from "@warden/mcp-server";
import { DEFAULT_CALL_TIMEOUT_MS } from "@warden/sdk";
import { pino } from "pino";
import type { MCP_OPTIONS } from "../command-list.js";
import { busConfig, connectionFor, openBus, wardenHomeDir } from "../connect.js";
import { MCP_CLIENTS, mcpClientConfig, type McpClient } from "../domain/mcp-client-config.js";
import { parseDuration, parseFlags, parseMode, parseToken } from "../domain/options.js";
import { CliError, EXIT_OK, usageError } from "../errors.js";
import type { CommandInput } from "../args.js";
import type { Command, CommandIo } from "../io.js";

/** The port `warden mcp --http` listens on unless told (0 picks a free one). */
export const DEFAULT_MCP_PORT = 8765;

/**
 * `warden mcp [--as NAME | --creds FILE] [--http]`: an MCP server acting as exactly one identity,
 * the one whose credentials it holds (never a name a client sends). stdout is the protocol on
 * stdio, so everything else (logs, the HTTP address and its token) goes to stderr. Over HTTP
 * every request carries a bearer token, and no client confirms its own calls (elicitation is
 * for stdio, whose client is the person's own process).
 */
export const mcpCommand: Command<typeof MCP_OPTIONS> = async ({ values }, io) => {
  const mode = parseMode(values.mode, "llm");
  const flags = parseFlags(values.flags);
  const scope = values.scope === undefined ? null : parseToken("--scope", values.scope);
  const callTimeoutMs = parseDuration("--timeout", values.timeout, DEFAULT_CALL_TIMEOUT_MS);
  const http = values.http ?? false;
  if (!http && (values.port !== undefined || values.host !== undefined)) throw usageError("--port and --host go with --http");
  const port = parsePort(values.port);
  const given = io.env["WARDEN_MCP_TOKEN"];
  const token = given === undefined || given === "" ? undefined : given;
  if (token !== undefined && /\s/.test(token)) throw usageError("WARDEN_MCP_TOKEN must be one word (no spaces)");
  if (values["print-config"] !== undefined) return printClientConfig(values, io);
  const { config, identity } = connectionFor(io, { name: values.as, creds: values.creds });
  const principal = principalOfConnection(config, identity);
  const log = pino(
    { base: { service: "warden-mcp", principal }, level: busConfig({ LOG_LEVEL: "warn", ...io.env }).LOG_LEVEL, timestamp: pino.stdTimeFunctions.isoTime },
    pino.destination(2),
  );
  const bus = await openBus(config, `warden-mcp-${principal}`);
  const sessionOptions: WardenMcpSessionOptions = {
    bus,
    principal,
    mode,
    scope,
    flags,
    callTimeoutMs,
    confirmInClient: values["never-confirm"] !== true,
    log,
  };
  try {
    if (http) {
      // always a token: without WARDEN_MCP_TOKEN the server makes one for this run
      const server = await startMcpHttpServer({
        createSession: () => createWardenMcpSession(sessionOptions),
        host: values.host ?? "127.0.0.1",
        port,
        ...(token === undefined ? {} : { token }),
        log,
      });
      io.err(`warden mcp: ${principal}'s tools (mode ${mode}) at ${server.url}; Ctrl-C stops`);
      if (server.tokenGenerated) {
        // shown once, here only: anyone who has it acts as the principal until this process ends
        io.err(`token for this run (set WARDEN_MCP_TOKEN to choose one): send every request with\n  Authorization: Bearer ${server.token}`);
      } else {
        io.err("every request must carry WARDEN_MCP_TOKEN as `Authorization: Bearer <token>`");
      }
      await io.stopSignal();
      await server.stop();
      return EXIT_OK;
    }
    const session = createWardenMcpSession(sessionOptions);
    const ended = new Promise<string>((resolve) => {
      session.server.onclose = () => resolve("closed");
      // the client closed our stdin: the session is over (the SDK's stdio transport does not notice)
      process.stdin.once("end", () => resolve("stdin ended"));
      process.stdin.once("close", () => resolve("stdin closed"));
    });
    await session.connect(new StdioServerTransport());
    log.info("mcp session on stdio");
    await Promise.race([ended, io.stopSignal()]);
    await session.close();
    return EXIT_OK;
  } finally {
    await bus.close();
  }
};

/**
 * `--print-config CLIENT`: the client's configuration that starts this very command (the same
 * options, less --print-config), with absolute paths; stdout is the configuration, the hint stderr.
 */
function printClientConfig(values: CommandInput<typeof MCP_OPTIONS>["values"], io: CommandIo): number {
  const client = values["print-config"];
  if (!(MCP_CLIENTS as readonly (string | undefined)[]).includes(client)) throw usageError(`--print-config is one of ${MCP_CLIENTS.join(", ")}, not ${JSON.stringify(client)}`);
  if (values.http === true) throw usageError("--print-config writes a stdio client's configuration: drop --http");
  if (values.as === undefined && values.creds === undefined) throw usageError("say who the session acts as: --as NAME (from WARDEN_HOME) or --creds FILE");
  const args = [
    ...(values.as === undefined ? [] : ["--as", values.as]),
    ...(values.creds === undefined ? [] : ["--creds", resolve(io.cwd, values.creds)]),
    ...(values.mode === undefined ? [] : ["--mode", values.mode]),
    ...(values.scope === undefined ? [] : ["--scope", values.scope]),
    ...(values.flags === undefined ? [] : ["--flags", values.flags]),
    ...(values.timeout === undefined ? [] : ["--timeout", values.timeout]),
    ...(values["never-confirm"] === true ? ["--never-confirm"] : []),
  ];
  const main = fileURLToPath(new URL("../main.js", import.meta.url));
  const { text, where } = mcpClientConfig(client as McpClient, { node: process.execPath, main, args, home: wardenHomeDir(io) });
  io.out(text);
  io.err(`warden mcp: ${where}; the client then starts \`warden mcp\` itself`);
  return EXIT_OK;
}

function parsePort(text: string | undefined): number {
  if (text === undefined) return DEFAULT_MCP_PORT;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0 || n > 65_535) throw usageError(`--port must be 0..65535, not ${JSON.stringify(text)}`);
  return n;
}

/**
 * The principal a session acts as: the name in its credentials' user JWT. `--as NAME` picks NAME's
 * credentials from WARDEN_HOME, so they name NAME; with `--creds FILE` (or NATS_CREDS) the file
 * says who it is, and a `--as` that disagrees with it is refused rather than tried.
 */
function principalOfConnection(config: BusConfig, asked: string | undefined): string {
  const file = config.NATS_CREDS;
  if (file === undefined || file === "") {
    if (asked === undefined) throw usageError("say who the session acts as: --as NAME (from WARDEN_HOME) or --creds FILE");
    return asked;
  }
  let named: string | undefined;
  try {
    named = identityOfCreds(readFileSync(file));
  } catch (err) {
    throw new CliError("NOT_FOUND", `cannot read credentials file ${file}: ${(err as Error).message}`);
  }
  if (named === undefined) throw new CliError("INVALID_REQUEST", `credentials file ${file} names no identity (its user JWT has no name)`);
  if (asked !== undefined && asked !== named) {
    throw new CliError("FORBIDDEN", `credentials file ${file} is ${named}'s, not ${asked}'s: a session acts only as the identity its credentials name`);
  }
  return named;
}
