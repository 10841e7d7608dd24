import { type EngineOperation, inputJsonSchema, operations } from "@quire/core";
import fc from "fast-check";
import type { Route } from "../../src/router.js";
import { routes } from "../../src/routes.js";
import { type Encoded, encodeLoosely, formBody, jsonBody, queryPairs, queryString } from "./encodings.js";
import { drawFrom, fieldHints, type IdKind, idOf, slugOf } from "./field-hints.js";
import { adminToken, ownerToken, type Pools, pngBytes } from "./fuzz-site.js";
import { oddString } from "./odd-values.js";
import { type JsonSchema, mutated, objectsOf } from "./schema-values.js";

/** One generated request, with what the fuzzer expects of its answer. */
export interface FuzzRequest {
  /** Operation (or kind of request) and how it was made, for the report. */
  label: string;
  /** The route it was made for, when it is sent with that route's method. */
  route: Route | null;
  /** True for an unknown path (404 NOT_FOUND) or a method the path does not take (405 METHOD_NOT_ALLOWED). */
  unrouted: boolean;
  method: string;
  /** Path and query, percent-encoded as sent. */
  url: string;
  headers: Record<string, string>;
  body?: Uint8Array;
  /** The body goes through the handler's `requestBody` option (as a Node server hands it over). */
  rawBody: boolean;
}

const byId = new Map<string, EngineOperation>(operations.map((operation) => [operation.id, operation]));

const jsonSchemas = new Map<string, JsonSchema>();

/** The operation's input as JSON Schema, converted once. */
function jsonSchemaOf(operation: EngineOperation): JsonSchema {
  let schema = jsonSchemas.get(operation.id);
  if (!schema) {
    schema = inputJsonSchema(operation.input) as JsonSchema;
    jsonSchemas.set(operation.id, schema);
  }
  return schema;
}

/** Fields that arrive from the transport, not from the query or JSON body. */
const transportFields = new Set(["body", "contentLength", "file", "filename", "poster", "posterContentType"]);

/** Any request: most for a route of the table, with its method; some with another method or to no route. */
export function fuzzRequests(pools: Pools): fc.Arbitrary<FuzzRequest> {
  return fc.oneof(
    { weight: 17, arbitrary: fc.oneof(...routes.map((route) => routeRequest(route, pools))) },
    { weight: 1, arbitrary: wrongMethod(pools) },
    { weight: 1, arbitrary: unknownPath() },
    { weight: 1, arbitrary: filePath(pools) },
  );
}

/** A request for one route: fields from its operation's schema, valid or mutated, encoded for its source. */
export function routeRequest(route: Route, pools: Pools): fc.Arbitrary<FuzzRequest> {
  const operation = byId.get(route.operation) as EngineOperation;
  const schema = jsonSchemaOf(operation);
  const params = paramNames(route.path);
  const properties = Object.fromEntries(
    Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>).filter(
      ([name]) =>
        !params.includes(name) &&
        !transportFields.has(name) &&
        !(route.input === "stream" && name === "contentType"),
    ),
  );
  const fieldSchema = { ...schema, properties };
  const valid = objectsOf(fieldSchema, fieldHints(pools));
  const fields = fc.oneof(
    { weight: 3, arbitrary: valid.map((values) => ({ values, mutated: false })) },
    { weight: 2, arbitrary: valid.chain(mutated).map((values) => ({ values, mutated: true })) },
  );
  return fc
    .record({
      path: pathFor(route, pools),
      fields,
      auth: authFor(operation.access, pools),
      length: fc.option(fc.constantFrom("exact", "short", "long", "huge", "garbage"), {
        freq: 5,
        nil: undefined,
      }),
      extraQuery: fc.option(fc.constantFrom("unknown=1", "limit=5", "include=fold", "%zz", "id=pst_x"), {
        freq: 6,
        nil: undefined,
      }),
      rawBody: fc.boolean(),
      // Asks for the unknown-fields header now and then: it names fields the client chose.
      warnUnknown: fc.boolean(),
      // A body the client says it compressed (it did not): refused unread, unless `identity`.
      coding: fc.option(fc.constantFrom("gzip", "identity", "br, gzip", "x-unknown"), {
        freq: 12,
        nil: undefined,
      }),
    })
    .chain(
      ({
        path,
        fields: { values, mutated: isMutated },
        auth,
        extraQuery,
        rawBody,
        length,
        warnUnknown,
        coding,
      }) =>
        encodedFor(route, values, path.upload).map((encoded) => {
          const query = [encoded.query, route.input === "none" ? extraQuery : undefined]
            .filter(Boolean)
            .join("&");
          const headers: Record<string, string> = {
            ...auth,
            ...(warnUnknown ? { prefer: "warn-unknown-fields" } : {}),
            ...(encoded.contentType ? { "content-type": encoded.contentType } : {}),
            ...(length && route.method !== "GET"
              ? { "content-length": contentLength(length, encoded.body) }
              : {}),
            ...(coding ? { "content-encoding": coding } : {}),
          };
          return {
            label: `${route.operation} ${isMutated ? "mutated" : "valid"} fields, ${encoded.how}${path.odd ? ", odd path" : ""}${length ? `, ${length} content-length` : ""}${coding ? `, content-encoding ${coding}` : ""}`,
            route,
            unrouted: false,
            method: route.method,
            url: query ? `${path.url}?${query}` : path.url,
            headers,
            ...(encoded.body ? { body: encoded.body } : {}),
            // GET carries a body only the way a Node server can hand one over.
            rawBody: route.method === "GET" || rawBody,
          };
        }),
    );
}

/** A `Content-Length` header: the body's, or a lie. */
function contentLength(kind: string, body: Uint8Array | undefined): string {
  const size = body?.byteLength ?? 0;
  if (kind === "exact") return String(size);
  if (kind === "short") return String(Math.max(0, size - 1));
  if (kind === "long") return String(size + 10);
  if (kind === "huge") return "99999999999999999999";
  return "abc";
}

function paramNames(path: string): string[] {
  return path
    .split("/")
    .filter((segment) => segment.startsWith(":"))
    .map((segment) => segment.slice(1));
}

/** The kind of ID a route's `:id` names. */
function idKindOf(route: Route): IdKind {
  if (route.path.startsWith("/api/uploads")) return "upl";
  if (route.path.startsWith("/api/media") || route.path.startsWith("/api/attachments")) return "med";
  if (route.path.startsWith("/api/internal/tokens")) return "tok";
  return "pst";
}

/** Odd bytes for a path segment, already percent-encoded (some not decodable at all). */
const oddSegments = [
  "%",
  "%zz",
  "%00",
  "%ff",
  "%C0%AF",
  "%ED%A0%80",
  "%2F",
  "%2e%2e",
  "..",
  ".",
  "a%2Fb",
  "%20",
  "x".repeat(3000),
];

/** The route's path with its parameters filled in: real IDs and slugs mostly, odd segments now and then. */
function pathFor(
  route: Route,
  pools: Pools,
): fc.Arbitrary<{ url: string; odd: boolean; upload: Pools["uploads"][number] | undefined }> {
  const params = paramNames(route.path);
  if (params.length === 0) return fc.constant({ url: route.path, odd: false, upload: undefined });
  const value = params[0] === "slug" ? slugOf(pools) : idOf(idKindOf(route), pools);
  return fc
    .oneof(
      { weight: 9, arbitrary: value.map((text) => ({ segment: encodeLoosely(text), odd: false })) },
      { weight: 1, arbitrary: fc.constantFrom(...oddSegments).map((segment) => ({ segment, odd: true })) },
    )
    .map(({ segment, odd }) => {
      const decoded = safeDecode(segment);
      return {
        url: route.path.replace(`:${params[0]}`, segment),
        odd,
        upload: pools.uploads.find((upload) => upload.id === decoded),
      };
    });
}

function safeDecode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** Credentials for an access level: right most of the time (the dev token or an API token), missing or wrong otherwise. */
function authFor(access: string, pools: Pools): fc.Arbitrary<Record<string, string>> {
  const right =
    access === "internal"
      ? fc.constant(adminToken)
      : access === "owner"
        ? fc.oneof(
            { weight: 4, arbitrary: fc.constant(ownerToken) },
            drawFrom(() => pools.apiTokens, fc.constant(ownerToken)),
          )
        : undefined;
  const wrong = fc.constantFrom<Record<string, string>>(
    {},
    { authorization: "Bearer nope" },
    { authorization: "Bearer " },
    { authorization: "Basic YWRtaW46YWRtaW4=" },
    { authorization: `Bearer ${ownerToken} extra` },
    { authorization: `bearer ${access === "internal" ? ownerToken : adminToken}` },
  );
  return right
    ? fc.oneof(
        { weight: 9, arbitrary: right.map((token) => ({ authorization: `Bearer ${token}` })) },
        { weight: 1, arbitrary: wrong },
      )
    : fc.oneof(fc.constant({}), wrong);
}

/** The fields encoded for the route's input source, with a body when it takes one. */
function encodedFor(
  route: Route,
  values: Record<string, unknown>,
  upload: Pools["uploads"][number] | undefined,
): fc.Arbitrary<Encoded> {
  switch (route.input) {
    case "query":
      return queryPairs(values)
        .chain(queryString)
        .chain((query) =>
          fc
            .option(fc.constantFrom("{}", "garbage", '{"id":"pst_x"}'), { freq: 8, nil: undefined })
            .map((body) => ({
              query,
              how: body === undefined ? "query" : "query, body on GET",
              ...(body === undefined ? {} : { body: new TextEncoder().encode(body) }),
            })),
        );
    case "body":
      return jsonBody(values);
    case "queryAndBody":
      // Either a JSON body, or every field in the query and no body.
      return fc.oneof(
        jsonBody(values),
        queryPairs(values)
          .chain(queryString)
          .map((query) => ({ query, how: "query beside an empty body" })),
      );
    case "none":
      return fc.constant({ query: "", how: "no input" });
    case "stream":
      return queryPairs(values)
        .chain(queryString)
        .chain((query) => streamBody(upload).map((body) => ({ ...body, query, how: `${body.how}` })));
    case "form":
      return fc
        .record({
          filename: fc.oneof(fc.constantFrom("a.png", "x.txt", "clip.mp4", "日本.png"), oddString()),
          type: fc.constantFrom(
            "image/png",
            "text/plain",
            "video/mp4",
            "image/gif",
            "application/octet-stream",
            "",
          ),
          data: fc.oneof(fc.constant(pngBytes(5, 5, 300)), fc.uint8Array({ maxLength: 300 })),
        })
        .chain((file) => formBody(values, file));
    case "raw":
      // A webhook delivery, unsigned: random bytes, a JSON object or nothing (401 or 404, never 500).
      return fc.oneof(
        fc.constant({ query: "", how: "no body" }),
        fc
          .oneof(fc.uint8Array({ maxLength: 64 }), fc.constant(new TextEncoder().encode('{"zen":"x"}')))
          .map((body) => ({ query: "", body, contentType: "application/json", how: "unsigned delivery" })),
      );
  }
}

/** Raw file bytes: the session's exact size (a PNG), another size, none, or random bytes. */
function streamBody(upload: Pools["uploads"][number] | undefined): fc.Arbitrary<Encoded> {
  const size = upload ? (upload.partSize ?? upload.size) : 16;
  return fc.oneof(
    {
      weight: 3,
      arbitrary: fc.constant({
        query: "",
        body: pngBytes(3, 3, size),
        contentType: "image/png",
        how: "body of the declared size",
      }),
    },
    {
      weight: 2,
      arbitrary: fc
        .uint8Array({ maxLength: 64 })
        .map((body) => ({ query: "", body, contentType: "application/octet-stream", how: "random bytes" })),
    },
    { weight: 1, arbitrary: fc.constant({ query: "", how: "no body" }) },
    {
      weight: 1,
      arbitrary: fc.constant({
        query: "",
        body: new Uint8Array(size + 1),
        contentType: "image/webp",
        how: "one byte too many",
      }),
    },
  );
}

const methods = ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS", "PROPFIND"];

/** A route's path with a method it does not take. */
function wrongMethod(pools: Pools): fc.Arbitrary<FuzzRequest> {
  return fc.constantFrom(...routes).chain((route) => {
    return pathFor(route, pools)
      .chain((path) => {
        // Methods no route takes for this very path (`/api/posts/slug` is also a post ID to PUT).
        // A GET route takes HEAD too.
        const taken = new Set<string>(
          routes
            .filter((other) => templateMatches(other.path, path.url))
            .flatMap((other) => (other.method === "GET" ? ["GET", "HEAD"] : [other.method])),
        );
        const others = methods.filter((method) => !taken.has(method));
        return fc.constantFrom(...others).map((method) => ({ method, path }));
      })
      .map(({ method, path }) => ({
        label: `${route.operation} path with ${method}`,
        route: null,
        // A parameter that cannot be decoded matches no route whatever the method.
        unrouted: true,
        method,
        url: path.url,
        headers: { authorization: `Bearer ${ownerToken}`, "content-type": "application/json" },
        ...(method === "GET" || method === "HEAD" ? {} : { body: new TextEncoder().encode("{}") }),
        rawBody: false,
      }));
  });
}

/** True when a concrete path fits a route's template (literal segments equal, any text for parameters). */
function templateMatches(template: string, url: string): boolean {
  const expected = template.split("/").filter(Boolean);
  // As the request will see it: `new Request` resolves `.` and `..` segments (`/x/./move` is `/x/move`).
  const actual = new URL(url, "http://fuzz.test").pathname.split("/").filter(Boolean);
  return (
    expected.length === actual.length &&
    expected.every((segment, i) => segment.startsWith(":") || segment === actual[i])
  );
}

const unknownPaths = [
  "/api",
  "/api/",
  "/api/unknown",
  "/api/posts/a/b/c",
  "/api/public",
  "/api/public/threads/a/b/c",
  "/api/uploads",
  "/api/internal",
  "/api/mcp",
  "/",
  "/index.html",
  "/api/%00",
  "/api/%ff/posts",
  "/API/posts",
  "/api/posts%2F",
  "//api//posts//x//y",
];

/** A path no route has. */
function unknownPath(): fc.Arbitrary<FuzzRequest> {
  return fc
    .tuple(fc.constantFrom(...unknownPaths), fc.constantFrom("GET", "POST", "DELETE"), oddString())
    .map(([path, method, tail]) => ({
      label: "unknown path",
      route: null,
      unrouted: true,
      method,
      url: path === "/api/unknown" ? `/api/${encodeLoosely(tail)}x/y/z` : path,
      headers: { authorization: `Bearer ${ownerToken}` },
      rawBody: false,
    }));
}

/** A path under /media, served by the file handler: a real key's folder, odd keys, traversal. */
function filePath(pools: Pools): fc.Arbitrary<FuzzRequest> {
  const keys = [
    "media/%2e%2e/x",
    "media/.tmp/x",
    "media/..%2F..%2Fetc/passwd",
    "%00",
    "a%ff",
    "x/%ED%A0%80",
    ".tmp/multipart",
  ];
  return fc
    .tuple(
      fc.oneof(
        fc.constantFrom(...keys),
        idOf("med", pools).map((id) => `media/2023/11/${encodeLoosely(id)}/file.png`),
      ),
      fc.constantFrom("GET", "HEAD", "POST"),
      fc.constantFrom<Record<string, string>>(
        {},
        { range: "bytes=0-1" },
        { range: "bytes=-0" },
        { range: "bytes=99999999999999999999-" },
        { "if-none-match": "*" },
      ),
    )
    .map(([key, method, headers]) => ({
      label: "file handler",
      route: null,
      unrouted: false,
      method,
      url: `/media/${key}`,
      headers,
      rawBody: false,
    }));
}
