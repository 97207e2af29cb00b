import { randomBytes, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { silentLogger, type Logger } from "@warden/bus";
import { type ErrorCode } from "@warden/contracts/errors";
import { matchesSecret, secretDigest } from "@warden/contracts/json";
import type { WardenMcpSession } from "./session.js";

/** Options of {@link startMcpHttpServer}. */
export interface McpHttpServerOptions {
  /** Makes the session of a new MCP client (its own agent client, view and run). */
  readonly createSession: () => WardenMcpSession;
  /** @default "127.0.0.1" */
  readonly host?: string;
  /** 0 picks a free port. @default 0 */
  readonly port?: number;
  /** @default "/mcp" */
  readonly path?: string;
  /**
   * The bearer token every request must carry (`Authorization: Bearer <token>`): anyone who
   * reaches the port and holds it acts as the session's principal. Without one the server makes
   * a random one ({@link McpHttpServer.token}); there is no way to serve without a token.
   */
  readonly token?: string;
  /** A body larger than this is refused (413). @default 4 MiB */
  readonly maxBodyBytes?: number;
  readonly log?: Logger;
}

export interface McpHttpServer {
  /** `http://host:port/mcp`. */
  readonly url: string;
  /** The bearer token requests must carry: the one given, or the one made for this run. */
  readonly token: string;
  /** Whether {@link token} was made here (then the caller shows it once to the person). */
  readonly tokenGenerated: boolean;
  /** Sessions open now. */
  sessions(): number;
  /** Closes every session and the listener. */
  stop(): Promise<void>;
}

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

function hostnameOf(hostHeader: string): string {
  if (hostHeader.startsWith("[")) return hostHeader.slice(0, hostHeader.indexOf("]") + 1);
  const colon = hostHeader.lastIndexOf(":");
  return colon < 0 ? hostHeader : hostHeader.slice(0, colon);
}

/**
 * On a loopback listener, a request whose Host or Origin is not loopback came through a page that
 * rebinds a name to 127.0.0.1 (DNS rebinding): refused, so a web page cannot act as the principal.
 */
function crossSiteProblem(req: IncomingMessage, loopback: boolean): string | undefined {
  if (!loopback) return undefined;
  const host = req.headers.host;
  if (host === undefined || !LOOPBACK_HOSTS.has(hostnameOf(host))) return `host ${host ?? "(none)"} is not this machine`;
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== "null") {
    try {
      if (!LOOPBACK_HOSTS.has(new URL(origin).hostname)) return `origin ${origin} is not this machine`;
    } catch {
      return `origin ${origin} is not a URL`;
    }
  }
  return undefined;
}

/** A token made per run: 32 random bytes, base64url (43 characters). */
function generateMcpToken(): string {
  return randomBytes(32).toString("base64url");
}

function tokenMatches(req: IncomingMessage, tokenDigest: Buffer): boolean {
  return matchesSecret(/^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "")?.[1], tokenDigest);
}

function refuse(res: ServerResponse, status: number, message: string, code: ErrorCode, extra: Record<string, string> = {}): void {
  if (res.headersSent) return;
  const body = { jsonrpc: "2.0", error: { code: -32000, message, data: { code } }, id: null };
  res.writeHead(status, { "content-type": "application/json", ...extra }).end(JSON.stringify(body));
}

class BodyTooLarge extends Error {
  override readonly name = "BodyTooLarge";
}

async function readBody(req: IncomingMessage, max: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const b = chunk as Buffer;
    size += b.length;
    if (size > max) throw new BodyTooLarge(`a request body is at most ${max} bytes`);
    chunks.push(b);
  }
  return JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown;
}

/**
 * Serves MCP over streamable HTTP: each client that initializes gets its own session (its own
 * `Mcp-Session-Id`) made by `createSession`, all acting as the principal whose credentials the
 * process holds. Every request carries the bearer token (given, or made here per run), checked
 * before anything reads the body or reaches a session. Loopback by default, with Host/Origin
 * checks against DNS rebinding.
 */
export async function startMcpHttpServer(opts: McpHttpServerOptions): Promise<McpHttpServer> {
  const host = opts.host ?? "127.0.0.1";
  const path = opts.path ?? "/mcp";
  const maxBody = opts.maxBodyBytes ?? 4 * 1024 * 1024;
  const log = opts.log ?? silentLogger();
  const loopback = LOOPBACK_HOSTS.has(host);
  const tokenGenerated = opts.token === undefined;
  const token = opts.token ?? generateMcpToken();
  if (token.length === 0 || /\s/.test(token)) throw new Error("an MCP bearer token is a non-empty word (no spaces)");
  const tokenDigest = secretDigest(token);
  const open = new Map<string, { transport: StreamableHTTPServerTransport; session: WardenMcpSession }>();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://localhost");
    const problem = crossSiteProblem(req, loopback);
    if (problem !== undefined) return refuse(res, 403, `refused: ${problem}`, "FORBIDDEN");
    if (!tokenMatches(req, tokenDigest)) {
      return refuse(res, 401, "refused: send this run's token as `Authorization: Bearer <token>` (warden mcp printed it)", "FORBIDDEN", { "www-authenticate": 'Bearer realm="warden-mcp"' });
    }
    if (url.pathname !== path) return refuse(res, 404, `not found: MCP is served at ${path}`, "NOT_FOUND");
    const sessionId = req.headers["mcp-session-id"];
    const known = typeof sessionId === "string" ? open.get(sessionId) : undefined;
    if (known !== undefined) return known.transport.handleRequest(req, res);
    if (sessionId !== undefined) return refuse(res, 404, "unknown or closed MCP session: initialize a new one", "NOT_FOUND");
    if (req.method !== "POST") return refuse(res, 400, "no MCP session: POST an initialize request first", "INVALID_REQUEST");
    let body: unknown;
    try {
      body = await readBody(req, maxBody);
    } catch (err) {
      if (err instanceof BodyTooLarge) return refuse(res, 413, err.message, "PAYLOAD_TOO_LARGE");
      return refuse(res, 400, "the body is not JSON", "INVALID_REQUEST");
    }
    if (!isInitializeRequest(body)) return refuse(res, 400, "no MCP session: the first request must be initialize", "INVALID_REQUEST");
    const session = opts.createSession();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        open.set(id, { transport, session });
        log.info({ sessionId: id }, "mcp session opened");
      },
    });
    transport.onclose = () => {
      const id = transport.sessionId;
      if (id !== undefined && open.delete(id)) log.info({ sessionId: id }, "mcp session closed");
      void session.close();
    };
    await session.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  const listener: HttpServer = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      log.error({ err }, "mcp http request failed");
      refuse(res, 500, "internal error", "INTERNAL");
    });
  });
  await new Promise<void>((resolve, reject) => {
    listener.once("error", reject);
    listener.listen(opts.port ?? 0, host, () => {
      listener.off("error", reject);
      resolve();
    });
  });
  const address = listener.address() as AddressInfo;
  const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}${path}`,
    token,
    tokenGenerated,
    sessions: () => open.size,
    async stop() {
      const sessions = [...open.values()];
      open.clear();
      await Promise.allSettled(sessions.map(async ({ transport, session }) => {
        await session.close();
        await transport.close();
      }));
      listener.closeAllConnections();
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    },
  };
}
