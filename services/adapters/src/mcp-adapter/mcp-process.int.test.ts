import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { silentLogger } from "@warden/bus";
import { SecretStore } from "@warden/executor";
import { eventually } from "@warden/testing";
import { FIXTURES, NODE, processesTagged, tempDir, uniqueTag } from "../../test/harness.js";
import { probeToolSandbox } from "../sandbox/tool-sandbox.js";
import { probeNetworkSandbox } from "../sandbox/network-sandbox.js";
import { probePidNamespace } from "../sandbox/pid-namespace.js";
import { McpSectionSchema } from "../manifest/manifest-schema.js";
import { McpConnection } from "./mcp-connection.js";

describe("a stdio MCP server in a PID namespace of its own", () => {
  it("takes every process it started down with it when the connection closes, a detached one of its own session too", async () => {
    const pidNamespace = await probePidNamespace();
    // CI runs as root, where PID namespaces are always available; say so rather than pass vacuously
    expect(pidNamespace, "this test needs PID namespaces (root or user namespaces)").toMatchObject({ available: true });
    const dir = tempDir("mcp-pidns");
    const config = join(dir, "fixture.json");
    writeFileSync(config, JSON.stringify({ description: "Echoes text back." }));
    const connection = new McpConnection({
      domain: "fixture",
      section: McpSectionSchema.parse({ transport: "stdio", command: NODE, args: [join(FIXTURES, "mcp-fixture-server.mjs"), config], network: "host" }),
      dir,
      hostEnv: process.env,
      secrets: SecretStore.none(),
      sandbox: await probeNetworkSandbox(),
      pidNamespace,
      confinement: { toolSandbox: await probeToolSandbox(), hidden: [] },
      log: silentLogger(),
    });
    const tag = uniqueTag("mcp-detach");
    try {
      const r = await connection.callTool("spawn-detached", { tag }, new AbortController().signal, 10_000);
      expect(r.content).toEqual([{ type: "text", text: "spawned" }]);
      await eventually(() => expect(processesTagged(tag)).toHaveLength(1), 5_000);
    } finally {
      await connection.close();
    }
    await eventually(() => expect(processesTagged(tag)).toEqual([]), 5_000);
  });
});
