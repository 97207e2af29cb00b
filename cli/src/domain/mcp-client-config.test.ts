import { describe, expect, it } from "vitest";
import { mcpClientConfig } from "./mcp-client-config.js";

const launch = { node: "/usr/bin/node", main: "/srv/warden/cli/dist/main.js", args: ["--as", "support-bot"], home: "/srv/warden/.warden" };

describe("mcpClientConfig", () => {
  it("writes the mcpServers entry Claude Desktop and Cursor read, with absolute paths", () => {
    for (const client of ["claude-desktop", "cursor"] as const) {
      const { text, where } = mcpClientConfig(client, launch);
      expect(JSON.parse(text)).toEqual({
        mcpServers: { warden: { command: "/usr/bin/node", args: ["/srv/warden/cli/dist/main.js", "mcp", "--as", "support-bot"], env: { WARDEN_HOME: "/srv/warden/.warden" } } },
      });
      expect(where).toContain(client === "cursor" ? "mcp.json" : "claude_desktop_config.json");
    }
  });

  it("writes Claude Code's `claude mcp add` line, quoting what a shell would split", () => {
    const { text } = mcpClientConfig("claude-code", { ...launch, home: "/home/me/my warden/.warden" });
    expect(text).toBe("claude mcp add warden -e 'WARDEN_HOME=/home/me/my warden/.warden' -- /usr/bin/node /srv/warden/cli/dist/main.js mcp --as support-bot");
  });
});
