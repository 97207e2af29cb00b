import { createServer, type RequestListener, type Server } from "node:http";
import { useStarted } from "@warden/testing";

/** An HTTP server on a free port of 127.0.0.1 answering with `handler`, and its base URL (a tool's `allowHosts: ["127.0.0.1"]`). */
export async function serveLocalHttp(handler: RequestListener): Promise<{ server: Server; base: string }> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { server, base: `http://127.0.0.1:${(server.address() as { port: number }).port}` };
}

/** {@link serveLocalHttp} for the `describe` block this is called in: listening before its tests, closed after them. */
export function useLocalHttp(handler: RequestListener): { readonly server: Server; readonly base: string } {
  return useStarted("useLocalHttp", () => serveLocalHttp(handler), async ({ server }) => void server.close());
}
