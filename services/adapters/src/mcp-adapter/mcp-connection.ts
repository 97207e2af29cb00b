import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ToolListChangedNotificationSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "@warden/bus";
import type { JsonObject } from "@warden/contracts/json";
import { Redactor, type SecretStore } from "@warden/executor";
import { AdapterConfigError } from "../adapter-errors.js";
import { buildChildEnv } from "../domain/child-env.js";
import type { McpToolInfo } from "../domain/mcp-descriptor.js";
import type { McpSection } from "../manifest/manifest-schema.js";
import { confineToolProcess, type ToolConfinement } from "../sandbox/confine-tool-process.js";
import { startupPaths } from "../sandbox/tool-sandbox.js";
import type { NetworkSandbox } from "../sandbox/network-sandbox.js";
import type { PidNamespace } from "../sandbox/pid-namespace.js";
import type { UnshareLayer } from "../sandbox/unshare.js";
import { ProcessTransport } from "./process-transport.js";

export interface McpConnectionOptions {
  readonly domain: string;
  readonly section: McpSection;
  /** The manifest's folder: the server's default working directory. */
  readonly dir: string;
  readonly hostEnv: Readonly<Record<string, string | undefined>>;
  readonly secrets: SecretStore;
  readonly sandbox: NetworkSandbox;
  /** Where available, a stdio server runs as PID 1 of its own namespace: what it starts dies with it. */
  readonly pidNamespace?: PidNamespace;
  /** The tools' sandbox, which a stdio server runs in unless marked trusted, and what it hides. */
  readonly confinement: ToolConfinement;
  readonly log: Logger;
  readonly clientVersion?: string;
}

/**
 * One MCP server, connected on demand (and again after it dies): lists its tools and calls them.
 * Its secrets are resolved when it starts; everything it returns is redacted with them.
 */
export class McpConnection {
  private client: Client | undefined;
  private connecting: Promise<Client> | undefined;
  private changeListener: (() => void) | undefined;
  redactor: Redactor = Redactor.none();

  constructor(private readonly o: McpConnectionOptions) {
    const s = o.section;
    if (s.transport === "stdio" && s.trusted && s.network === "none" && !o.sandbox.available) {
      throw new AdapterConfigError(
        `the ${o.domain} MCP server declares network: none, but this machine cannot start a process without network (${o.sandbox.reason}); run as root, allow user namespaces, or declare network: host`,
      );
    }
  }

  /** Called when the server says its tool list changed. */
  onToolsChanged(listener: () => void): void {
    this.changeListener = listener;
  }

  async listTools(): Promise<McpToolInfo[]> {
    const client = await this.connected();
    const out: McpToolInfo[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor });
      for (const t of page.tools) {
        out.push({ name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema as JsonObject, annotations: t.annotations });
      }
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return out;
  }

  async callTool(name: string, args: Record<string, unknown>, signal: AbortSignal, timeoutMs: number): Promise<CallToolResult> {
    const client = await this.connected();
    return (await client.callTool({ name, arguments: args }, undefined, { signal, timeout: timeoutMs })) as CallToolResult;
  }

  async close(): Promise<void> {
    const client = this.client ?? (await this.connecting?.catch(() => undefined));
    this.client = undefined;
    this.connecting = undefined;
    await client?.close().catch(() => {});
  }

  private connected(): Promise<Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= this.connect().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async connect(): Promise<Client> {
    const s = this.o.section;
    const uses = s.secrets;
    const secrets = await this.o.secrets.resolve(uses.map((u) => u.secret));
    if (!secrets.ok) throw new Error(secrets.error.message);
    this.redactor = new Redactor(secrets.value);
    const injected: Record<string, string> = {};
    for (const u of uses) injected[(u.env ?? u.header)!] = `${u.prefix}${secrets.value.get(u.secret)!}`;
    const transport = s.transport === "stdio" ? this.stdioTransport(injected) : this.httpTransport(injected);
    const client = new Client({ name: `warden-${this.o.domain}`, version: this.o.clientVersion ?? "0.1.0" });
    client.onclose = () => {
      if (this.client === client) this.client = undefined;
      this.o.log.info("mcp server connection closed");
    };
    client.onerror = (err) => this.o.log.warn({ err: { message: this.redactor.text(err.message) } }, "mcp transport error");
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.changeListener?.());
    try {
      await client.connect(transport, { timeout: s.connectTimeoutMs });
    } catch (err) {
      await transport.close().catch(() => {});
      throw new Error(`cannot connect to the ${this.o.domain} MCP server: ${this.redactor.text((err as Error).message)}`, { cause: err });
    }
    this.client = client;
    this.o.log.info({ transport: s.transport, server: client.getServerVersion()?.name }, "mcp server connected");
    return client;
  }

  private stdioTransport(injected: Record<string, string>): Transport {
    const s = this.o.section;
    const command = s.command!.includes("/") ? resolve(this.o.dir, s.command!) : s.command!;
    const env = buildChildEnv(s.env, this.o.hostEnv, injected);
    const layers: UnshareLayer[] = [];
    if (s.network === "none" && this.o.sandbox.available) layers.push(this.o.sandbox);
    if (this.o.pidNamespace?.available) layers.push(this.o.pidNamespace);
    const cwd = resolve(this.o.dir, s.cwd ?? ".");
    // the folders its args name are the operator's to give it (as a CLI tool's roots); its working folder and files it reads
    const argPaths = s.args.map((a) => resolve(cwd, a)).filter((p) => existsSync(p));
    const line = confineToolProcess(this.o.confinement, {
      command,
      args: s.args,
      cwd,
      network: s.network,
      writable: argPaths.filter((p) => statSync(p).isDirectory()),
      readable: [cwd, ...startupPaths([command, ...argPaths])],
      trusted: s.trusted,
      layers,
    });
    if (!line.ok) throw new Error(`the ${this.o.domain} MCP server cannot start: ${line.error.message}`);
    return new ProcessTransport({
      ...line.value,
      env,
      onStderrLine: (text) => this.o.log.debug({ line: this.redactor.text(text).slice(0, 2_000) }, "mcp server stderr"),
    });
  }

  private httpTransport(injected: Record<string, string>): Transport {
    const s = this.o.section;
    const headers = { ...s.headers, ...injected };
    return new StreamableHTTPClientTransport(new URL(s.url!), { requestInit: { headers } });
  }
}
