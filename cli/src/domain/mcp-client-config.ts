/** The MCP clients whose configuration `warden mcp --print-config` writes. */
export const MCP_CLIENTS = ["claude-desktop", "cursor", "claude-code"] as const;
export type McpClient = (typeof MCP_CLIENTS)[number];

export interface McpLaunch {
  /** Absolute path of the node binary (a client's PATH may hold another Node). */
  readonly node: string;
  /** Absolute path of the CLI's main.js. */
  readonly main: string;
  /** The `warden mcp` arguments after `mcp` (who, mode, ...). */
  readonly args: readonly string[];
  /** Absolute WARDEN_HOME, whose credentials the session uses. */
  readonly home: string;
}

/**
 * What to paste into a client so it starts `warden mcp` as this identity: the `mcpServers` JSON of
 * Claude Desktop (claude_desktop_config.json) and Cursor (mcp.json), or Claude Code's `claude mcp
 * add` line. Absolute paths throughout: a client starts the server from its own folder.
 */
export function mcpClientConfig(client: McpClient, l: McpLaunch): { readonly text: string; readonly where: string } {
  const args = [l.main, "mcp", ...l.args];
  if (client === "claude-code") {
    return { text: ["claude", "mcp", "add", "warden", "-e", `WARDEN_HOME=${l.home}`, "--", l.node, ...args].map(shellWord).join(" "), where: "run it in a shell" };
  }
  const text = JSON.stringify({ mcpServers: { warden: { command: l.node, args, env: { WARDEN_HOME: l.home } } } }, null, 2);
  return { text, where: client === "cursor" ? "merge it into .cursor/mcp.json (or ~/.cursor/mcp.json)" : "merge it into claude_desktop_config.json" };
}

function shellWord(w: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`;
}
