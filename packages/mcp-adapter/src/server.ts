import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  ListToolsRequestSchema,
  McpError,
  PingRequestSchema,
  type Request,
} from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { Caller, Engine } from "@quire/core";
import { callTool, type ToolCallOptions } from "./call-tool.js";
import { toolDefinitions } from "./tools.js";

/** The one MCP protocol version Quire speaks. @see docs/mcp.md § Protocol version */
export const mcpProtocolVersion = "2025-06-18";

/** The server's name and version in `initialize`. */
export const serverInfo = { name: "quire", version: "0.1.0" } as const;

const instructions =
  "Quire publishing tools for one site: posts grouped into Threads, media, collections and settings. " +
  "IDs are typed (pst_… posts, med_… media, col_… collections). Lists page with cursor/nextCursor. " +
  "A failed call answers isError with { error, code, details? }; branch on code.";

/** Options of {@link createMcpServer}. */
export type McpServerOptions = ToolCallOptions;

/**
 * An MCP server (the official SDK's `Server`) with every `site_*` tool of the spec, acting for
 * `caller`. Connect it to any SDK transport (`StdioServerTransport` for a local agent); the
 * `/api/mcp` endpoint connects one per request.
 *
 * Requests are dispatched here rather than through the SDK's per-method schemas so that bad params
 * answer JSON-RPC -32602 (Invalid params) on every transport, and `initialize` always answers
 * {@link mcpProtocolVersion}, whatever version the client proposes, as MCP's negotiation allows.
 */
export function createMcpServer(engine: Engine, caller: Caller, options: McpServerOptions = {}): Server {
  const tools = toolDefinitions(engine);
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const listed = {
    tools: tools.map(({ name, title, description, inputSchema, annotations }) => ({
      name,
      title,
      description,
      inputSchema,
      annotations,
    })),
  };
  const capabilities = { tools: { listChanged: false } };
  const server = new QuireServer(serverInfo, {
    capabilities,
    instructions,
    jsonSchemaValidator: sharedValidator(),
  });
  server.removeRequestHandler("initialize");
  server.removeRequestHandler("ping");
  server.fallbackRequestHandler = async (request: Request) => {
    switch (request.method) {
      case "initialize":
        checked(InitializeRequestSchema, request);
        return {
          protocolVersion: mcpProtocolVersion,
          capabilities,
          serverInfo,
          instructions,
        };
      case "ping":
        checked(PingRequestSchema, request);
        return {};
      case "tools/list":
        checked(ListToolsRequestSchema, request);
        return listed;
      case "tools/call": {
        const { params } = checked(CallToolRequestSchema, request);
        const tool = byName.get(params.name);
        if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${params.name}`);
        return callTool(engine, tool, argumentsOf(request) ?? params.arguments ?? {}, caller, options);
      }
      default:
        throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
    }
  };
  return server;
}

/**
 * The call's arguments as the message carried them. The SDK's checked copy is rebuilt by
 * assignment, which makes an argument named `__proto__` the copy's prototype instead of one of its
 * keys (so a tool that takes named arguments would not see it to refuse it). The message comes from
 * `JSON.parse`, where every key is an own property. Undefined when there are none.
 */
function argumentsOf(request: Request): Record<string, unknown> | undefined {
  const args = (request.params as { arguments?: unknown } | undefined)?.arguments;
  return typeof args === "object" && args !== null && !Array.isArray(args)
    ? (args as Record<string, unknown>)
    : undefined;
}

/**
 * The SDK's server, but a request that asks to run as a task (`params.task`, a later MCP version's)
 * is invalid params: the SDK's own check answers it as an internal error (-32603), as if the server
 * had failed. Quire speaks {@link mcpProtocolVersion}, which has no tasks.
 */
class QuireServer extends Server {
  protected override assertTaskHandlerCapability(method: string): void {
    throw new McpError(
      ErrorCode.InvalidParams,
      `Invalid params for ${method}: task is not taken (MCP ${mcpProtocolVersion} has no tasks); call without it`,
    );
  }
}

/** A schema issue as zod reports it: where, and what. */
export interface SchemaIssue {
  path: PropertyKey[];
  message: string;
}

type Parser<T> = {
  safeParse(
    value: unknown,
  ): { success: true; data: T } | { success: false; error: { issues: SchemaIssue[] } };
};

/** The request checked with the SDK's schema of its method; a mismatch is -32602 (Invalid params). */
function checked<T>(schema: Parser<T>, request: Request): T {
  const parsed = schema.safeParse(request);
  if (!parsed.success) {
    throw new McpError(ErrorCode.InvalidParams, invalidParamsMessage(request.method, parsed.error.issues));
  }
  return parsed.data;
}

/** `Invalid params for tools/call: params.name: Invalid input: expected string, received number`. */
export function invalidParamsMessage(method: string, issues: readonly SchemaIssue[]): string {
  const described = issues.map((issue) => `${issue.path.map(String).join(".")}: ${issue.message}`);
  return `Invalid params for ${method}: ${described.join("; ")}`;
}

let validator: AjvJsonSchemaValidator | undefined;

/** One validator for every server: the SDK builds an Ajv instance per server otherwise (unused by tools). */
function sharedValidator(): AjvJsonSchemaValidator {
  validator ??= new AjvJsonSchemaValidator();
  return validator;
}
