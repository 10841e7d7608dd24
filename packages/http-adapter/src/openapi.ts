import { type AnyOperation, errorCodes, inputJsonSchema, outputComponents } from "@quire/core";
import type { InputSource, Route } from "./router.js";
import { routes as defaultRoutes } from "./routes.js";
import type { statusOf } from "./status.js";

type JsonSchema = Record<string, unknown>;

/** An OpenAPI 3.1 document (the parts this module writes). */
export interface OpenApiDocument {
  openapi: "3.1.0";
  info: {
    title: string;
    version: string;
    description: string;
    license: { name: string; identifier: string };
  };
  servers?: { url: string }[];
  tags: { name: string }[];
  paths: Record<string, Record<string, unknown>>;
  components: Record<string, unknown>;
}

/** The version of the HTTP contract the document describes (the packages' version). */
export const apiVersion = "0.1.0";

/**
 * The HTTP API as an OpenAPI 3.1 document, built from the route table and each operation's zod
 * input: every route with its parameters, body, success status, error answers and auth scheme. A
 * route added to the table appears here on its own. Served at `/api/openapi.json` and written to
 * docs/openapi.json by `pnpm openapi`.
 *
 * Success bodies are described as JSON objects with the operation's description: the operations
 * declare no output schema, and the shapes are documented in docs/api.md and the resource docs.
 */
export function openApiDocument(
  operations: Iterable<AnyOperation>,
  routes: readonly Route[] = defaultRoutes,
): OpenApiDocument {
  const byId = new Map<string, AnyOperation>();
  for (const operation of operations) byId.set(operation.id, operation);
  const paths: Record<string, Record<string, unknown>> = {};
  const tags = new Set<string>();
  const seen = new Map<string, number>();
  const answers = outputComponents(byId.values());
  for (const route of routes) {
    const operation = byId.get(route.operation);
    if (!operation)
      throw new Error(`Route ${route.method} ${route.path} names no operation ${route.operation}`);
    const tag = tagOf(operation.id);
    tags.add(tag);
    const path = openApiPath(route.path);
    paths[path] ??= {};
    const described = describeRoute(route, operation, tag, answers.refs.get(operation.id));
    // OpenAPI wants unique operationIds; a second route to one operation gets a numbered one.
    const count = (seen.get(operation.id) ?? 0) + 1;
    seen.set(operation.id, count);
    if (count > 1) described.operationId = `${operation.id}.${count}`;
    (paths[path] as Record<string, unknown>)[route.method.toLowerCase()] = described;
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Quire HTTP API",
      version: apiVersion,
      description:
        "The HTTP surface of the Quire publishing engine. Every error answers `{ error, code, details? }`; " +
        "clients branch on `code`. Unknown request fields are ignored (ask for the `Quire-Unknown-Fields` " +
        "header with `Prefer: warn-unknown-fields`). See docs/api.md and docs/errors.md.",
      license: { name: "MIT", identifier: "MIT" },
    },
    servers: [{ url: "/" }],
    tags: [...tags].sort().map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        ownerToken: {
          type: "http",
          scheme: "bearer",
          description:
            "An API token of the site owner (created with POST /api/internal/tokens), the dev token on a " +
            "local host, or the embedding app's own session (the handler's `authenticate` hook).",
        },
        internalAdminToken: {
          type: "http",
          scheme: "bearer",
          description:
            "The operator's INTERNAL_ADMIN_TOKEN; without it configured, /api/internal/* answers 404.",
        },
      },
      schemas: {
        ...answers.schemas,
        Error: {
          type: "object",
          required: ["error", "code"],
          properties: {
            error: { type: "string", description: "A message for people; its wording may change." },
            code: { type: "string", enum: [...errorCodes], description: "What clients branch on." },
            details: { type: "object", description: "Present on some errors; see ValidationDetails." },
          },
        },
        ValidationDetails: {
          type: "object",
          required: ["formErrors", "fieldErrors"],
          properties: {
            formErrors: { type: "array", items: { type: "string" } },
            fieldErrors: {
              type: "object",
              description: "Messages by field path, e.g. `title` or `attachments[0].content`.",
              additionalProperties: { type: "array", items: { type: "string" } },
            },
          },
        },
      },
      responses: Object.fromEntries(
        errorResponses.map(([code, description]) => [
          code,
          {
            description,
            content: {
              "application/json": {
                schema: { $ref: "#/components/schemas/Error" },
                example: { error: description, code },
              },
            },
            ...(code === "UNAUTHORIZED"
              ? {
                  headers: {
                    "WWW-Authenticate": { schema: { type: "string" }, example: 'Bearer realm="quire"' },
                  },
                }
              : {}),
          },
        ]),
      ),
    },
  };
}

const errorResponses: [code: keyof typeof statusOf, description: string][] = [
  ["VALIDATION_ERROR", "Invalid input; details name the fields"],
  ["UNAUTHORIZED", "Authentication required"],
  ["FORBIDDEN", "Not allowed"],
  ["NOT_FOUND", "Not found"],
  ["CONFLICT", "Conflict with the stored state"],
  ["UNSUPPORTED_MEDIA_TYPE", "The body is not sent as the route reads it (JSON, or uncompressed)"],
  ["RATE_LIMITED", "Too many requests from this client; retry after the Retry-After seconds"],
  ["INTERNAL_ERROR", "Unexpected error"],
  ["SITE_UNAVAILABLE", "The hosted site is suspended (the operator's siteAvailable hook)"],
];

/** Operations the handler rate-limits per client (docs/authentication.md § Rate limits). */
const rateLimited = new Set(["posts.search"]);

/**
 * The /api operations that answer a file rather than JSON, by the file's media type. The worked
 * examples test (test/openapi.http.test.ts) compares every answer's type with the document, so an
 * operation missing here fails it.
 */
const fileAnswers: Record<string, string> = {
  "export.hugo": "application/zip",
};

/** `/api/posts/:id` → `/api/posts/{id}`. */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
}

function tagOf(id: string): string {
  return id.split(".")[0] as string;
}

function pathParams(path: string): string[] {
  return [...path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1] as string);
}

/** Fields a transport fills from the request itself rather than from the client's fields. */
const streamFields = new Set(["body", "contentLength", "contentType"]);

function describeRoute(
  route: Route,
  operation: AnyOperation,
  tag: string,
  answer: { $ref: string } | undefined,
): Record<string, unknown> {
  const schema = inputJsonSchema(operation.input) as JsonSchema;
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  const inPath = pathParams(route.path);
  const parameters: Record<string, unknown>[] = inPath.map((name) => ({
    name,
    in: "path",
    required: true,
    schema: properties[name] ?? { type: "string" },
  }));
  const queryNames = queryFields(route.input, properties, inPath);
  for (const name of queryNames) {
    const property = properties[name] as JsonSchema;
    parameters.push({
      name,
      in: "query",
      required: route.input === "query" && required.has(name),
      ...(typeof property.description === "string" ? { description: property.description } : {}),
      schema: withoutDescription(property),
      ...(property.type === "array" ? { style: "form", explode: false } : {}),
    });
  }
  const op: Record<string, unknown> = {
    operationId: operation.id,
    summary: operation.description,
    tags: [tag],
    "x-quire-access": operation.access,
    ...(hintsOf(operation) ? { "x-quire-hints": hintsOf(operation) } : {}),
    security:
      operation.access === "public"
        ? []
        : operation.access === "internal"
          ? [{ internalAdminToken: [] }]
          : [{ ownerToken: [] }],
  };
  if (parameters.length > 0) op.parameters = parameters;
  const body = requestBody(route.input, schema, properties, required, inPath);
  if (body) op.requestBody = body;
  const status = String(route.status ?? 200);
  const file = fileAnswers[operation.id];
  op.responses = {
    [status]:
      status === "204"
        ? { description: "Done; no body." }
        : file
          ? {
              description: `${operation.description} A file download (${file}), not JSON.`,
              content: { [file]: { schema: { type: "string", contentMediaType: file } } },
            }
          : route.path.startsWith("/api/")
            ? {
                description: operation.description,
                content: {
                  "application/json": {
                    schema: answer ?? { type: "object" },
                  },
                },
              }
            : {
                // Outside /api a route answers a document (a feed, the sitemap, robots.txt), not JSON.
                description: `${operation.description} A document in its own media type, not JSON.`,
                content: { "*/*": { schema: { type: "string" } } },
              },
    ...(operation.access === "public" && route.method === "GET"
      ? {
          "304": {
            description: "Not modified: the answer's ETag matched `If-None-Match` (docs/caching.md).",
          },
        }
      : {}),
    ...errorRefs(route, operation),
  };
  return op;
}

function hintsOf(operation: AnyOperation): Record<string, boolean> | undefined {
  const hints = operation.hints ?? {};
  const set = Object.fromEntries(Object.entries(hints).filter(([, value]) => value === true));
  return Object.keys(set).length > 0 ? set : undefined;
}

function queryFields(input: InputSource, properties: Record<string, JsonSchema>, inPath: string[]): string[] {
  const names = Object.keys(properties).filter((name) => !inPath.includes(name));
  switch (input) {
    case "query":
    case "queryAndBody":
      return names;
    case "stream":
      return names.filter((name) => !streamFields.has(name));
    default:
      return [];
  }
}

function requestBody(
  input: InputSource,
  schema: JsonSchema,
  properties: Record<string, JsonSchema>,
  required: Set<string>,
  inPath: string[],
): Record<string, unknown> | undefined {
  const fields = Object.fromEntries(Object.entries(properties).filter(([name]) => !inPath.includes(name)));
  const needed = [...required].filter((name) => name in fields);
  switch (input) {
    case "body":
    case "queryAndBody": {
      const body: JsonSchema = { type: "object", properties: fields };
      if (needed.length > 0 && input === "body") body.required = needed;
      for (const key of ["anyOf", "oneOf", "allOf"]) if (schema[key]) body[key] = schema[key];
      return {
        required: input === "body" && needed.length > 0,
        content: { "application/json": { schema: body } },
      };
    }
    case "raw":
      return {
        required: true,
        description: `The delivery as the sender sent it: the bytes are read as they are, with the request's headers${
          typeof properties.headers?.description === "string" ? ` (${properties.headers.description})` : ""
        }.`,
        content: { "application/json": { schema: { type: "object" } } },
      };
    case "stream":
      return {
        required: true,
        description: "The file's bytes, sent as they are; Content-Type and Content-Length describe them.",
        content: {
          "application/octet-stream": {
            schema: { type: "string", contentMediaType: "application/octet-stream" },
          },
        },
      };
    case "form": {
      const formFields = Object.fromEntries(
        Object.entries(fields).map(([name, field]) =>
          field.contentEncoding === "base64"
            ? [name, { type: "string", contentMediaType: "application/octet-stream" }]
            : [name, field],
        ),
      );
      return {
        required: true,
        content: {
          "multipart/form-data": {
            schema: {
              type: "object",
              properties: formFields,
              ...(needed.length > 0
                ? { required: needed.filter((n) => n !== "filename" && n !== "contentType") }
                : {}),
            },
          },
        },
      };
    }
    default:
      return undefined;
  }
}

function errorRefs(route: Route, operation: AnyOperation): Record<string, unknown> {
  const ref = (code: string) => ({ $ref: `#/components/responses/${code}` });
  const refs: Record<string, unknown> = { "400": ref("VALIDATION_ERROR") };
  if (operation.access !== "public") {
    refs["401"] = ref("UNAUTHORIZED");
    refs["403"] = ref("FORBIDDEN");
  }
  // A webhook (raw input) checks its own signature or secret header: 401 when it does not match.
  if (route.input === "raw") refs["401"] = ref("UNAUTHORIZED");
  refs["404"] = ref("NOT_FOUND");
  if (route.method !== "GET") refs["409"] = ref("CONFLICT");
  // JSON bodies of another declared type, and any body sent with a Content-Encoding (docs/errors.md).
  if (route.input !== "none" && route.input !== "query") refs["415"] = ref("UNSUPPORTED_MEDIA_TYPE");
  if (rateLimited.has(operation.id)) refs["429"] = ref("RATE_LIMITED");
  refs["500"] = ref("INTERNAL_ERROR");
  // Internal operations stay open on a suspended site, so its operator can still export or clean up.
  if (operation.access !== "internal") refs["503"] = ref("SITE_UNAVAILABLE");
  return refs;
}

function withoutDescription(schema: JsonSchema): JsonSchema {
  const { description: _description, ...rest } = schema;
  return rest;
}
