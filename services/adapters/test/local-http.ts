import { createServer, type RequestListener, type Server } from "node:http";

/** An HTTP server on a free port of 127.0.0.1 answering with `handler`, and its base URL (a tool's `allowHosts: ["127.0.0.1"]`). */
export async function serveLocalHttp(handler: RequestListener): Promise<{ server: Server; base: string }> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { server, base: `http://127.0.0.1:${(server.address() as { port: number }).port}` };
}
