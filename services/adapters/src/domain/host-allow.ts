/**
 * Host allow-list entries: `api.example.com` (any port), `api.example.com:8443` (that port),
 * `*.example.com` (any subdomain, not the apex). Compared without case.
 */
export function hostAllowed(url: URL, allowHosts: readonly string[]): boolean {
  const hostname = url.hostname.toLowerCase();
  const host = url.host.toLowerCase();
  const port = url.port === "" ? defaultPort(url.protocol) : url.port;
  return allowHosts.some((raw) => {
    const entry = raw.toLowerCase();
    const { name, port: entryPort } = splitHost(entry);
    if (entryPort !== undefined && entryPort !== port) return false;
    if (name.startsWith("*.")) return hostname.endsWith(name.slice(1)) && hostname.length > name.length - 1;
    return name === hostname || entry === host;
  });
}

function splitHost(entry: string): { name: string; port: string | undefined } {
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(entry);
  return m ? { name: m[1]!, port: m[2] } : { name: entry, port: undefined };
}

function defaultPort(protocol: string): string {
  return protocol === "https:" ? "443" : protocol === "http:" ? "80" : "";
}
