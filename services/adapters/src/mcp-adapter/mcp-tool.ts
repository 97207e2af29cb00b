import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ToolDescriptor } from "@warden/contracts/descriptor";
import type { JsonValue } from "@warden/contracts/json";
import type { ExecutableTool, PreviewContext, Redactor, ToolContext } from "@warden/executor";
import { adapterTool, type AdapterHooks, type Args } from "../adapter-tool.js";
import { redactedError, tail, toolFailure } from "../adapter-errors.js";
import { fillBody } from "../domain/http-request.js";
import type { McpOverride, McpSection } from "../manifest/manifest-schema.js";
import { dryRunProblem } from "./mcp-catalog.js";
import { contentHash } from "../domain/mcp-descriptor.js";
import type { McpToolInfo } from "../domain/mcp-descriptor.js";
import type { McpConnection } from "./mcp-connection.js";

export interface McpToolOptions {
  readonly descriptor: ToolDescriptor;
  readonly mcpName: string;
  readonly connection: McpConnection;
  /** How the server's current definition of the tool is described (to compare with `descriptor`). */
  readonly describe: (info: McpToolInfo) => ToolDescriptor;
  /** Called when the server's tool no longer matches the descriptor: a new version must be discovered. */
  readonly onChanged: () => void;
  /** The manifest's MCP section, when the tool has a dry run (another tool of the server that only reads). */
  readonly dryRun?: { readonly section: McpSection; readonly preview: NonNullable<McpOverride["preview"]> };
  readonly hooks?: AdapterHooks;
}

const ERROR_TEXT = 2_000;
/** Time the MCP request may take beyond the call's deadline, so the executor's timeout answers first. */
const REQUEST_SLACK_MS = 1_000;

/**
 * A discovered MCP tool. Before each call the server's current definition is compared with the
 * descriptor the call was approved against; a server that changed it is refused (DESCRIPTOR_CHANGED).
 */
export function mcpTool(o: McpToolOptions): ExecutableTool {
  const expected = contentHash(o.descriptor);
  const run = async (args: Args, ctx: ToolContext): Promise<JsonValue> => {
    const { connection } = o;
    try {
      const now = (await connection.listTools()).find((t) => t.name === o.mcpName);
      if (now === undefined || contentHash(o.describe(now)) !== expected) {
        o.onChanged();
        const what = now === undefined ? "no longer offers it" : "now describes it differently";
        throw toolFailure(connection.redactor, "DESCRIPTOR_CHANGED", `the MCP server ${what}; nothing was called. A new version must be enabled first`, false);
      }
      const result = await connection.callTool(o.mcpName, { ...args }, ctx.signal, o.descriptor.timeoutMs + REQUEST_SLACK_MS);
      return shapeResult(result, connection.redactor);
    } catch (err) {
      if (ctx.signal.aborted) throw toolFailure(connection.redactor, "TIMEOUT", "the MCP call was cancelled: the call timed out", true);
      throw redactedError(connection.redactor, err);
    }
  };
  const dryRun = o.dryRun;
  const preview = async (args: Args, ctx: PreviewContext): Promise<JsonValue> => {
    const { connection } = o;
    try {
      // the server may have changed the dry run's tool since discovery: it must still only read
      const problem = dryRunProblem(dryRun!.section, dryRun!.preview.tool, await connection.listTools());
      if (problem !== undefined) throw toolFailure(connection.redactor, "DESCRIPTOR_CHANGED", `${problem}; nothing was called`, false);
      const filled = dryRun!.preview.args === undefined ? { ok: true as const, value: { ...args } } : fillBody(dryRun!.preview.args, args);
      if (!filled.ok) throw toolFailure(connection.redactor, "INVALID_ARGS", filled.error.message, false);
      const previewArgs = (filled.value ?? {}) as Record<string, unknown>;
      const result = await connection.callTool(dryRun!.preview.tool, previewArgs, ctx.signal, o.descriptor.timeoutMs + REQUEST_SLACK_MS);
      return shapeResult(result, connection.redactor);
    } catch (err) {
      if (ctx.signal.aborted) throw toolFailure(connection.redactor, "TIMEOUT", "the MCP dry run was cancelled: it timed out", true);
      throw redactedError(connection.redactor, err);
    }
  };
  return adapterTool(o.descriptor, (args) => ({ ok: true, run: (ctx) => run(args, ctx) }), {
    ...(o.hooks === undefined ? {} : { hooks: o.hooks }),
    ...(dryRun === undefined ? {} : { preview: (args: Args) => ({ ok: true, run: (ctx: PreviewContext) => preview(args, ctx) }) }),
  });
}

/** The call's output: the server's content (and structured content), redacted; an `isError` result fails the call. */
function shapeResult(result: CallToolResult, redactor: Redactor): JsonValue {
  if (result.isError === true) {
    const text = redactor.text(result.content.flatMap((c) => (c.type === "text" ? [c.text] : [])).join("\n"));
    throw toolFailure(redactor, "HANDLER_ERROR", `the MCP tool answered with an error${text ? `: ${tail(text, 300)}` : ""}`, false, {
      text: tail(text, ERROR_TEXT),
    });
  }
  const out: Record<string, unknown> = { content: result.content };
  if (result.structuredContent !== undefined) out["structuredContent"] = result.structuredContent;
  return redactor.value(JSON.parse(JSON.stringify(out)) as JsonValue);
}
