export { artifactUri, toMcpCallResult, WARDEN_META_KEY, type CallResultOptions, type McpCallResult } from "./domain/call-result.js";
export { confirmationRequest, confirmedBy, type Confirmation, type ConfirmationForm } from "./domain/confirmation.js";
export { parseMcpToolList, toListedTool, type ListedTool, type McpTool } from "./domain/mcp-tools.js";
export { startMcpHttpServer, type McpHttpServer, type McpHttpServerOptions } from "./http.js";
export { createWardenMcpSession, type WardenMcpSession, type WardenMcpSessionOptions } from "./session.js";
