export { callTool, type ToolCallOptions, type ToolResult } from "./call-tool.js";
export {
  createMcpHandler,
  type McpHandler,
  type McpHandlerOptions,
  type McpRequestContext,
  maxMessageBytes,
} from "./http.js";
export { createMcpServer, type McpServerOptions, mcpProtocolVersion, serverInfo } from "./server.js";
export { type StdioOptions, serveStdio } from "./stdio.js";
export {
  type ToolDefinition,
  type ToolGroup,
  type ToolName,
  type ToolSpec,
  toolDefinitions,
  toolTable,
} from "./tools.js";
