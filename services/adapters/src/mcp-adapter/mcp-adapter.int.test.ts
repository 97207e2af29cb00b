import { spawn, type ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readEvent } from "@warden/bus";
import type { ToolRecord } from "@warden/contracts/descriptor";
import { createAgentClient, createApproverClient, createRegistryClient, type AgentClient, type ApproverClient } from "@warden/sdk";
import { eventually } from "@warden/testing";
import { FIXTURES, MCP_EVERYTHING, NODE, useAdaptersWarden, tempDir, TEST_POLICY, writeManifest } from "../../test/harness.js";
import { startAdaptersService, type AdaptersService } from "../service.js";
import { cardWithPreview } from "../../test/approval-card.js";
import type { LoadedManifest } from "../manifest/load-manifests.js";

const FIXTURE_SERVER = join(FIXTURES, "mcp-fixture-server.mjs");

describe("MCP adapter: discovered tools, enabled by an operator, versioned by content", () => {
  const w = useAdaptersWarden(TEST_POLICY);
  let human: AgentClient;
  let alice: ApproverClient;
  const services: AdaptersService[] = [];

  const start = async (loaded: LoadedManifest, env: Record<string, string> = {}) => {
    // the adapters run as their domain's executor identity, with the approver key pinned
    const s = await startAdaptersService({ bus: await w.executorBus([loaded.manifest.domain]), log: w.log, manifests: [loaded], env, approverKeys: w.approverKeys });
    services.push(s);
    return s;
  };
  const records = async (prefix: string): Promise<ToolRecord[]> => {
    const r = await createRegistryClient(w.bus).list();
    if (!r.ok) throw new Error(r.error.message);
    return r.value.filter((t) => t.descriptor.name.startsWith(prefix));
  };
  const statusOf = async (name: string) => Object.fromEntries((await records(name)).filter((r) => r.descriptor.name === name).map((r) => [r.descriptor.version, r.status]));
  const enable = async (name: string, version?: string) => {
    const r = await createRegistryClient(w.bus).setStatus({ name, status: "enabled", ...(version === undefined ? {} : { version }) });
    if (!r.ok) throw new Error(r.error.message);
  };

  beforeAll(async () => {
    // alice calls and decides as herself; the admin connection enables tools and reads the stream
    const aliceBus = await w.humanBus("alice");
    human = createAgentClient({ bus: aliceBus, principal: "alice", mode: "human", timeoutMs: 15_000 });
    alice = createApproverClient({ bus: aliceBus, approver: "alice" });
  });
  afterAll(async () => {
    for (const s of services) await s.stop();
  });

  describe("a real MCP server from node_modules (server-everything) over stdio", () => {
    beforeAll(async () => {
      const loaded = await writeManifest(tempDir("mcp-everything"), "everything.yaml", {
        domain: "everything",
        mcp: {
          transport: "stdio",
          command: NODE,
          args: [MCP_EVERYTHING, "stdio"],
          exclude: ["trigger-long-running-operation"],
          tools: {
            // a dry run by another tool of the server, one that only reads; and one that would write, refused
            "gzip-file-as-resource": { preview: { tool: "echo", args: { message: "would compress {data} into {name}" } } },
            "get-tiny-image": { preview: { tool: "toggle-subscriber-updates" } },
          },
        },
      });
      await start(loaded);
    });

    it("registers every tool it offers as discovered, graded from its hints", async () => {
      const byName = new Map((await records("everything.")).map((r) => [r.descriptor.name, r]));
      expect(byName.get("everything.echo")).toMatchObject({ status: "discovered", descriptor: { version: "1.0.0", grade: "read", network: "none" } });
      expect(byName.get("everything.get-sum")?.descriptor.grade).toBe("read");
      // readOnly false, destructive false, open-world false: a write
      expect(byName.get("everything.toggle-simulated-logging")?.descriptor).toMatchObject({ grade: "write", destructive: false, openWorld: false });
      // open-world: a send
      expect(byName.get("everything.gzip-file-as-resource")?.descriptor).toMatchObject({ grade: "send", openWorld: true });
      expect(byName.has("everything.trigger-long-running-operation")).toBe(false);
    });

    it("refuses calls to a discovered tool until an operator enables it, then runs them through the full chain", async () => {
      const before = await human.call("everything.echo", { message: "hi" });
      expect(before).toMatchObject({ ok: false, status: "rejected", error: { code: "TOOL_DISABLED" } });
      await enable("everything.echo");
      const after = await human.call("everything.echo", { message: "hi" });
      expect(after).toMatchObject({ ok: true, status: "succeeded", data: { content: [{ type: "text", text: "Echo: hi" }] } });
      await enable("everything.get-sum");
      expect(await human.call("everything.get-sum", { a: 2, b: 40 })).toMatchObject({ ok: true, data: { content: [{ text: expect.stringMatching(/42/) }] } });
    });

    it("puts the dry run of another, read-only tool of the server on the approval card, and skips a tool whose dry run would write", async () => {
      const byName = new Map((await records("everything.")).map((r) => [r.descriptor.name, r]));
      expect(byName.get("everything.gzip-file-as-resource")?.descriptor).toMatchObject({ grade: "send", preview: true });
      expect(byName.has("everything.get-tiny-image")).toBe(false);
      expect(w.logs()).toMatch(/"mcpTool":"get-tiny-image","reason":"its dry run toggle-subscriber-updates is graded write; a dry run must only read/);
      await enable("everything.gzip-file-as-resource");
      const asked = await human.call("everything.gzip-file-as-resource", { name: "notes.gz", data: "https://example.com/notes.txt" });
      expect(asked).toMatchObject({ status: "awaiting_approval" });
      const card = await cardWithPreview(alice, asked.callId);
      expect(card.preview).toMatchObject({ data: { content: [{ type: "text", text: "Echo: would compress https://example.com/notes.txt into notes.gz" }] } });
      expect(await alice.deny(card.approvalId, card.argsHash, "not now")).toMatchObject({ ok: true });
    });

    it("lets the registry reject args that do not fit the server's schema before the server sees them", async () => {
      expect(await human.call("everything.get-sum", { a: "two", b: 1 })).toMatchObject({ status: "rejected", error: { code: "INVALID_ARGS" } });
    });
  });

  describe("a server whose tools change (a fixture written with the SDK's McpServer)", () => {
    let dir: string;
    let config: string;
    let loaded: LoadedManifest;
    let service: AdaptersService;
    const describeAs = (echo: string, notify: string) => writeFileSync(config, JSON.stringify({ description: echo, notifyDescription: notify }));

    beforeAll(async () => {
      dir = tempDir("mcp-fixture");
      config = join(dir, "fixture.json");
      describeAs("Use to echo text back, for tests.", "Use to notify a person; they see it at once.");
      loaded = await writeManifest(dir, "fixture.yaml", { domain: "fixture", mcp: { transport: "stdio", command: NODE, args: [FIXTURE_SERVER, config] } });
      service = await start(loaded);
    });

    it("gives a changed tool a new version that needs enabling again, and refuses an approval granted for the old one", async () => {
      expect(await statusOf("fixture.notify")).toEqual({ "1.0.0": "discovered" });
      expect((await records("fixture.notify"))[0]!.descriptor.grade).toBe("send");
      await enable("fixture.echo");
      await enable("fixture.notify");
      expect(await human.call("fixture.echo", { text: "one" })).toMatchObject({ ok: true, data: { content: [{ text: "echo: one" }] } });

      // a send waits for a person; meanwhile the server changes what it says about the tool
      const pending = await human.call("fixture.notify", { to: "bob" });
      expect(pending).toMatchObject({ status: "awaiting_approval", approvalId: expect.any(String) });
      await service.stop();
      describeAs("Use to echo text back, for tests (new wording).", "Use to notify a person at once; now also pages them.");
      service = await start(loaded);

      expect(await statusOf("fixture.echo")).toEqual({ "1.0.0": "disabled", "1.0.1": "discovered" });
      expect(await statusOf("fixture.notify")).toEqual({ "1.0.0": "disabled", "1.0.1": "discovered" });
      expect(service.domains[0]!.tools().get("fixture.notify")).toBe("1.0.1");

      // the approval was for 1.0.0: granting it now is refused at the executor
      const requested = await readEvent(w.bus, "fixture", pending.callId, "ApprovalRequested");
      expect(requested?.data).toMatchObject({ approvalId: pending.approvalId, version: "1.0.0" });
      expect(await alice.approve(pending.approvalId!, requested!.data.argsHash)).toMatchObject({ ok: true });
      const rejected = await eventually(async () => {
        const e = await readEvent(w.bus, "fixture", pending.callId, "ToolCallRejected");
        expect(e).toBeDefined();
        return e!;
      });
      expect(rejected.data).toMatchObject({ stage: "executor", error: { code: "DESCRIPTOR_CHANGED" } });
      expect(await readEvent(w.bus, "fixture", pending.callId, "ToolCallStarted")).toBeUndefined();

      // new calls wait for the operator too
      expect(await human.call("fixture.echo", { text: "two" })).toMatchObject({ status: "rejected", error: { code: "TOOL_DISABLED" } });
      await enable("fixture.echo", "1.0.1");
      expect(await human.call("fixture.echo", { text: "two" })).toMatchObject({ ok: true, data: { content: [{ text: "echo: two" }] } });
    });

    it("keeps the version of a tool whose content did not change across restarts", async () => {
      await service.stop();
      service = await start(loaded);
      expect(await statusOf("fixture.echo")).toEqual({ "1.0.0": "disabled", "1.0.1": "enabled" });
      expect(await human.call("fixture.echo", { text: "three" })).toMatchObject({ ok: true });
    });

    it("refuses a call when the server changed the tool silently since discovery, and discovers the new version", async () => {
      await enable("fixture.silent-rug-pull");
      expect(await human.call("fixture.silent-rug-pull", {})).toMatchObject({ ok: true });
      const r = await human.call("fixture.echo", { text: "four" });
      expect(r).toMatchObject({ ok: false, error: { code: "DESCRIPTOR_CHANGED", message: expect.stringMatching(/nothing was called/) } });
      await eventually(async () => expect(await statusOf("fixture.echo")).toEqual({ "1.0.0": "disabled", "1.0.1": "disabled", "1.0.2": "discovered" }));
      await eventually(() => expect(service.domains[0]!.tools().get("fixture.echo")).toBe("1.0.2"));
    });

    it("discovers a new version as soon as the server announces that its tools changed", async () => {
      await enable("fixture.rug-pull");
      expect(await human.call("fixture.rug-pull", {})).toMatchObject({ ok: true });
      await eventually(async () => expect((await statusOf("fixture.echo"))["1.0.3"]).toBe("discovered"));
    });
  });

  describe("a server over streamable HTTP", () => {
    let child: ChildProcess;

    beforeAll(async () => {
      const dir = tempDir("mcp-http");
      const config = join(dir, "fixture.json");
      writeFileSync(config, JSON.stringify({ description: "Use to echo text back, over HTTP.", transport: "http", requireToken: "http-token-value-123" }));
      child = spawn(NODE, [FIXTURE_SERVER, config], { stdio: ["ignore", "pipe", "inherit"] });
      const port = await new Promise<number>((resolve) => child.stdout!.once("data", (b: Buffer) => resolve(Number(b.toString().trim()))));
      const loaded = await writeManifest(dir, "remote.yaml", {
        domain: "remote",
        secrets: [{ name: "remote_token", env: "REMOTE_TOKEN" }],
        mcp: { transport: "http", url: `http://127.0.0.1:${port}/mcp`, secrets: [{ secret: "remote_token", header: "X-Fixture-Token" }] },
      });
      await start(loaded, { REMOTE_TOKEN: "http-token-value-123" });
    });
    afterAll(() => void child?.kill());

    it("discovers its tools with the secret header and runs them once enabled", async () => {
      expect((await statusOf("remote.echo"))["1.0.0"]).toBe("discovered");
      expect((await records("remote.echo"))[0]!.descriptor).not.toHaveProperty("network");
      await enable("remote.echo");
      expect(await human.call("remote.echo", { text: "over http" })).toMatchObject({ ok: true, data: { content: [{ text: "echo: over http" }] } });
    });
  });
});
