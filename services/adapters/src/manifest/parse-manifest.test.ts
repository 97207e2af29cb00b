import { describe, expect, it } from "vitest";
import { descriptorHash } from "@warden/contracts/descriptor";
import { parseManifest } from "./parse-manifest.js";
import { toolDescriptor } from "./tool-descriptor.js";

const good = `domain: files
secrets:
  - name: api_token
    env: FILES_API_TOKEN
tools:
  - name: grep
    version: 1.0.0
    title: Search files
    description: Use to find lines matching a pattern in the project files.
    grade: read
    inputSchema:
      type: object
      properties:
        pattern: { type: string }
        dir: { type: string }
      required: [pattern]
    cli:
      command: /usr/bin/grep
      argv: ["-rn", "--", "{pattern}", "."]
      roots: ["."]
      cwd: "{dir}"
      output: text
      okExitCodes: [0, 1]
  - name: files.lookup
    version: 1.0.0
    title: Look up a file record
    description: Use to read one file record from the catalogue API.
    grade: read
    inputSchema: { type: object, properties: { id: { type: string } }, required: [id] }
    http:
      url: https://api.example.com/files/{id}
      allowHosts: [api.example.com]
    secrets:
      - { secret: api_token, header: Authorization, prefix: "Bearer " }
`;

function errorsOf(text: string) {
  const r = parseManifest(text, "m.yaml");
  if (r.ok) throw new Error("expected the manifest to be refused");
  return r;
}

describe("parseManifest", () => {
  it("accepts a valid manifest, filling defaults, and builds descriptors naming their network and secrets", () => {
    const r = parseManifest(good, "m.yaml");
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const [grep, lookup] = r.manifest.tools;
    expect(grep!.cli).toMatchObject({ network: "none", output: "text", maxStdoutBytes: 1024 * 1024, env: { allow: [], set: {} } });
    expect(toolDescriptor("files", grep!, [])).toMatchObject({ name: "files.grep", network: "none" });
    expect(toolDescriptor("files", lookup!, [])).toMatchObject({ name: "files.lookup", secrets: ["api_token"] });
    expect(toolDescriptor("files", lookup!, [])).not.toHaveProperty("network");
    expect(toolDescriptor("files", grep!, [])).not.toHaveProperty("unconfined");
  });

  it("names a CLI tool its manifest marks trusted as unconfined, so its L1 calls are not counted as sandboxed", () => {
    const r = parseManifest(good.replace("      okExitCodes: [0, 1]\n", "      okExitCodes: [0, 1]\n      trusted: true\n"), "m.yaml");
    if (!r.ok) throw new Error(JSON.stringify(r));
    expect(toolDescriptor("files", r.manifest.tools[0]!, [])).toMatchObject({ name: "files.grep", network: "none", unconfined: true });
  });

  it("reads JSON manifests too", () => {
    const json = JSON.stringify({ domain: "d", mcp: { transport: "stdio", command: "node", args: ["server.js"] } });
    expect(parseManifest(json).ok).toBe(true);
  });

  it("names the line, column and path of a schema error", () => {
    const r = errorsOf(good.replace("    grade: read\n    inputSchema:\n      type: object", "    grade: reed\n    inputSchema:\n      type: object"));
    expect(r.issues).toEqual([expect.objectContaining({ path: "tools[0].grade", line: 10, col: 12 })]);
    expect(r.message).toMatch(/^m\.yaml:10:12: tools\[0\]\.grade: /);
  });

  it("points an unknown key at the key itself", () => {
    const r = errorsOf(good.replace("      output: text", "      output: text\n      shell: true"));
    expect(r.issues[0]).toMatchObject({ path: "tools[0].cli.shell", line: 23 });
  });

  it("refuses an unsafe method on a read tool at load time, on the method's line", () => {
    const r = errorsOf(good.replace("      url: https://api.example.com/files/{id}", "      method: DELETE\n      url: https://api.example.com/files/{id}"));
    expect(r.issues).toEqual([expect.objectContaining({ path: "tools[1].http.method", line: 31, message: expect.stringMatching(/not allowed for a read tool/) })]);
  });

  it("refuses a fixed URL whose host is off the allow-list", () => {
    const r = errorsOf(good.replace("allowHosts: [api.example.com]", "allowHosts: [other.example.com]"));
    expect(r.issues[0]).toMatchObject({ path: "tools[1].http.url", message: expect.stringMatching(/not on the tool's allow-list/) });
  });

  it("refuses placeholders that name no input property and secrets that are not declared", () => {
    const r = errorsOf(good.replace('"{pattern}", "."', '"{patern}", "."').replace("secret: api_token,", "secret: other_token,"));
    expect(r.issues.map((i) => i.path)).toEqual(["tools[0].cli.argv", "tools[1].secrets[0].secret"]);
    expect(r.issues[0]!.message).toMatch(/\{patern\} names no property/);
  });

  it("refuses a tool with no adapter section, or both, and a read tool flagged destructive", () => {
    const both = errorsOf(good.replace("    http:\n", "    cli: { command: x, roots: [.] }\n    http:\n"));
    expect(both.issues[0]).toMatchObject({ path: "tools[1]", message: expect.stringMatching(/exactly one adapter/) });
    const lint = errorsOf(good.replace("    grade: read\n    inputSchema:\n      type", "    grade: read\n    destructive: true\n    inputSchema:\n      type"));
    expect(lint.issues[0]!.message).toMatch(/read-not-destructive/);
  });

  it("reports YAML syntax errors with their line", () => {
    const r = errorsOf("domain: x\ntools: [\n");
    expect(r.issues[0]!.line).toBeGreaterThanOrEqual(2);
  });

  it("requires a command for a stdio MCP server and env (not header) secrets for it", () => {
    const r = errorsOf(`domain: d\nsecrets: [{ name: tok_en, env: T }]\nmcp:\n  transport: stdio\n  secrets: [{ secret: tok_en, header: X-Token }]\n`);
    expect(r.issues.map((i) => i.path)).toEqual(["mcp.command", "mcp.secrets[0].header"]);
    expect(r.issues[0]!.line).toBe(4);
  });

  describe("dry runs and hooks", () => {
    const withHooks = good
      .replace("      okExitCodes: [0, 1]\n", "      okExitCodes: [0, 1]\n    preview:\n      argv: [\"-rnc\", \"--\", \"{pattern}\", \".\"]\n    verify: { command: ./check.sh, argv: [--strict] }\n    preCall: { command: ./gate.sh }\n")
      .replace("      allowHosts: [api.example.com]\n", "      allowHosts: [api.example.com]\n    preview:\n      method: HEAD\n      url: https://api.example.com/files/{id}\n    postCall: { command: ./notify.sh, roots: [.] }\n");

    it("accepts a CLI tool's command dry run and an HTTP tool's HEAD, and flags the descriptor as defineTool does: preview and verify, not the commands", () => {
      const r = parseManifest(withHooks, "m.yaml");
      if (!r.ok) throw new Error(r.message);
      const [grep, lookup] = r.manifest.tools;
      expect(grep!.preview).toEqual({ argv: ["-rnc", "--", "{pattern}", "."] });
      expect(grep!.verify).toEqual({ command: "./check.sh", argv: ["--strict"], env: { allow: [], set: {} }, trusted: false });
      const d = toolDescriptor("files", grep!, []);
      expect(d).toMatchObject({ preview: true, verify: true });
      expect(d).not.toHaveProperty("preCall");
      expect(toolDescriptor("files", lookup!, [])).toMatchObject({ preview: true });
      expect(toolDescriptor("files", lookup!, [])).not.toHaveProperty("verify");
      // declaring a check changes the descriptor, so its hash and the approvals bound to it
      const { verify: _verify, ...without } = grep!;
      expect(descriptorHash(toolDescriptor("files", without, []))).not.toBe(descriptorHash(d));
    });

    it("refuses a dry run of the wrong kind, a hook with no folder to run in, and a hook argv that expects placeholders", () => {
      const r = errorsOf(
        withHooks
          .replace("    preview:\n      argv: [", "    preview:\n      url: https://api.example.com/\n      argv: [")
          .replace("    postCall: { command: ./notify.sh, roots: [.] }", "    postCall: { command: ./notify.sh }")
          .replace("argv: [--strict]", "argv: [\"--id={pattern}\"]"),
      );
      expect(r.issues.map((i) => [i.path, i.message])).toEqual([
        ["tools[0].preview.url", "a CLI tool's dry run is a command: give argv (and command if it is another), not url"],
        ["tools[0].verify.argv[0]", "a hook's argv is fixed: it reads the call's args as JSON on stdin, not from {pattern}"],
        ["tools[1].postCall", "postCall of an HTTP tool needs roots: the folders its command runs in (relative to the manifest)"],
      ]);
    });

    it("refuses an MCP tool that is its own dry run, and an MCP hook with no roots", () => {
      const r = errorsOf(`domain: d\nmcp:\n  transport: stdio\n  command: node\n  tools:\n    delete:\n      preview: { tool: delete }\n      verify: { command: ./check.sh }\n`);
      expect(r.issues.map((i) => i.path)).toEqual(["mcp.tools.delete.verify", "mcp.tools.delete.preview.tool"]);
      expect(r.issues[1]).toMatchObject({ line: 7, message: expect.stringMatching(/cannot be its own dry run/) });
    });
  });

  it("marks a tool using a secret bound to the principal as acting for the caller, and only that tool", () => {
    const r = parseManifest(good.replace("    env: FILES_API_TOKEN\n", "    file: api_token\n    bind: principal\n"), "m.yaml");
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const [grep, lookup] = r.manifest.tools;
    expect(r.manifest.secrets[0]).toMatchObject({ name: "api_token", bind: "principal" });
    expect(toolDescriptor("files", lookup!, r.manifest.secrets)).toMatchObject({ secrets: ["api_token"], actsAs: "caller" });
    expect(toolDescriptor("files", grep!, r.manifest.secrets)).not.toHaveProperty("actsAs");
    // a tool acting with its executor's secret keeps the descriptor it had
    const plain = parseManifest(good, "m.yaml");
    expect(plain.ok && toolDescriptor("files", plain.manifest.tools[1]!, plain.manifest.secrets)).not.toHaveProperty("actsAs");
  });

  it("refuses a principal-bound secret from an environment variable, one given to an MCP server, and actsAs written by hand", () => {
    const env = errorsOf(good.replace("    env: FILES_API_TOKEN\n", "    env: FILES_API_TOKEN\n    bind: principal\n"));
    expect(env.issues[0]).toMatchObject({ path: "secrets[0].bind", message: expect.stringMatching(/bound to the principal comes from a key of the secrets file/) });
    const mcp = errorsOf(`domain: d\nsecrets: [{ name: tok_en, file: tok_en, bind: principal }]\nmcp:\n  transport: stdio\n  command: x\n  secrets: [{ secret: tok_en, env: TOKEN }]\n`);
    expect(mcp.issues[0]).toMatchObject({ path: "mcp.secrets[0].secret", message: expect.stringMatching(/serves every caller/) });
    const byHand = errorsOf(good.replace("    grade: read\n    inputSchema: { type: object", "    grade: read\n    actsAs: caller\n    inputSchema: { type: object"));
    expect(byHand.issues[0]!.message).toMatch(/actsAs/);
  });
});
