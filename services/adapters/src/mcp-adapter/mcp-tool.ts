import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { JsonValue, ToolDescriptor } from "@warden/contracts";
import type { ExecutableTool, Redactor, ToolContext } from "@warden/executor";
import { adapterTool, type Args } from "../adapter-tool.js";
import { redactedError, tail, toolFailure } from "../adapter-errors.js";
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
  return adapterTool(o.descriptor, (args) => ({ ok: true, run: (ctx) => run(args, ctx) }));
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
