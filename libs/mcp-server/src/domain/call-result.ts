import { toModelMessage, type ArtifactRef, type ToolResult } from "@warden/contracts/events";
import { type JsonValue } from "@warden/contracts/json";
import { callHandleUri } from "./call-task.js";

/** The `_meta` key under which a result names its Warden call (MCP reserves unprefixed keys). */
export const WARDEN_META_KEY = "dev.warden/call";

/** The URI a result's artifact is linked by; the artifact store is `warden_artifacts`. */
export function artifactUri(id: string): string {
  return `warden://artifacts/${encodeURIComponent(id)}`;
}

export interface TextContent {
  readonly type: "text";
  readonly text: string;
}

export interface ResourceLinkContent {
  readonly type: "resource_link";
  readonly uri: string;
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly mimeType: string;
}

/** What a Warden call answers an MCP `tools/call` with (MCP's CallToolResult, as plain JSON). */
export interface McpCallResult {
  readonly content: (TextContent | ResourceLinkContent)[];
  readonly structuredContent?: Record<string, JsonValue>;
  readonly isError: boolean;
  readonly _meta: Record<string, JsonValue>;
  readonly [key: string]: unknown;
}

export interface CallResultOptions {
  /**
   * The tool declares an output schema: an MCP client then requires `structuredContent` on every
   * result that is not an error, and checks it against the schema.
   */
  readonly hasOutputSchema: boolean;
  /** A line added after the text of a result that is not a success (e.g. where to decide a pending call). */
  readonly note?: string;
  /**
   * The call goes on after this answer (it waits for a person, or its wait ran out): link its
   * handle resource (`warden://calls/<callId>`), which the client reads later for the outcome.
   */
  readonly handle?: boolean;
}

function isPlainObject(v: JsonValue | undefined): v is Record<string, JsonValue> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function artifactLink(a: ArtifactRef): ResourceLinkContent {
  return {
    type: "resource_link",
    uri: artifactUri(a.id),
    name: a.id,
    title: `full output (${a.bytes} bytes)`,
    description: `The whole output of this call, kept in Warden's artifact store (sha256 ${a.sha256}); the text above is a preview.`,
    mimeType: a.contentType,
  };
}

/** The call's identity and state, for a client (or a person) that wants more than the text. */
function metaOf(r: ToolResult, handle: boolean): Record<string, JsonValue> {
  return {
    [WARDEN_META_KEY]: {
      callId: r.callId,
      ...(handle ? { handle: callHandleUri(r.callId) } : {}),
      status: r.status,
      ...(r.approvalId === undefined ? {} : { approvalId: r.approvalId }),
      ...(r.error === undefined ? {} : { code: r.error.code, retryable: r.error.retryable }),
    },
  };
}

function handleLink(callId: string): ResourceLinkContent {
  return {
    type: "resource_link",
    uri: callHandleUri(callId),
    name: callId,
    title: `Warden call ${callId}`,
    description: "This call's state, and its result once it has ended: read this resource later (resources/read).",
    mimeType: "application/json",
  };
}

function handleNote(callId: string): TextContent {
  return {
    type: "text",
    text: `Read ${callHandleUri(callId)} later for its outcome. Calling again with the same arguments in this session follows this same call; it does not ask again.`,
  };
}

/**
 * A call whose wait ran out: it may still run, so asking again would ask for a second call (the
 * SDK's WAIT_TIMEOUT is retryable for a program that knows the call id, not for a model).
 */
function stillRunning(r: ToolResult): string {
  const waiting = r.approvalId === undefined ? "" : ` It waits for a person's approval (approvalId ${r.approvalId}).`;
  return `PENDING: call ${r.callId} has not ended yet; its outcome is not known.${waiting} Do not call it again with the same arguments: it may still run.`;
}

/**
 * Maps a Warden result to MCP: the text a model reads is `toModelMessage`'s (an error says its
 * code and whether to retry; a call that waits for a person says PENDING with its approval id);
 * every result that is not a success is `isError` (the model can correct itself, and a client
 * does not ask a pending result for structured content); a success of a tool with an output
 * schema carries its output as `structuredContent`; artifacts are resource links.
 *
 * A success whose output cannot be structured content (a preview of an output too large for the
 * call's result, or an output that is not an object) is an error for a tool with an output
 * schema, saying so: an MCP client refuses a success without valid structured content.
 */
export function toMcpCallResult(r: ToolResult, opts: CallResultOptions): McpCallResult {
  const links = (r.artifacts ?? []).map(artifactLink);
  const meta = metaOf(r, opts.handle === true);
  const note: (TextContent | ResourceLinkContent)[] = [
    ...(opts.note === undefined ? [] : [{ type: "text" as const, text: opts.note }]),
    ...(opts.handle === true ? [handleNote(r.callId), handleLink(r.callId)] : []),
  ];
  if (r.status === "pending") return { content: [{ type: "text", text: stillRunning(r) }, ...note, ...links], isError: true, _meta: meta };
  if (!r.ok) return { content: [{ type: "text", text: toModelMessage(r) }, ...note, ...links], isError: true, _meta: meta };
  const text = toModelMessage(r);
  if (!opts.hasOutputSchema) return { content: [{ type: "text", text }, ...links], isError: false, _meta: meta };
  if (r.truncated !== true && isPlainObject(r.data)) {
    return { content: [{ type: "text", text }, ...links], structuredContent: r.data, isError: false, _meta: meta };
  }
  const why = r.truncated === true ? "its output was too large to return whole" : "its output is not an object";
  return {
    content: [{ type: "text", text: `SUCCEEDED, but ${why}, so it cannot be returned as this tool's structured output. ${text}` }, ...links],
    isError: true,
    _meta: meta,
  };
}
