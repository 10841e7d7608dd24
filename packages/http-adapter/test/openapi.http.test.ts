import { readFileSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";
import { operations } from "@quire/core";
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import {
  committedOpenApi as committedDocument,
  renderApiMarkdown,
  workedExamples,
} from "../scripts/api-docs.js";
import { routes } from "../src/index.js";
import { openApiDocument, openApiPath } from "../src/openapi.js";
import { createRouter } from "../src/router.js";
import { createTestSite } from "./helpers.js";

const docs = new URL("../../../docs/", import.meta.url);
const methods = ["get", "put", "post", "delete", "patch", "head", "options"];

/** `METHOD /path/{param}` for every operation of a document. */
function documented(doc: { paths: Record<string, Record<string, unknown>> }): string[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((method) => methods.includes(method))
      .map((method) => `${method.toUpperCase()} ${path}`),
  );
}

describe("the OpenAPI document", () => {
  it("is a valid OpenAPI 3.1 document (and the validator does reject a broken one)", async () => {
    const examples = await workedExamples();
    const committedOpenApi = () => committedDocument(examples);
    const validator = new Validator();
    const result = await validator.validate(structuredClone(committedOpenApi()) as never);
    expect(result.errors ?? [], JSON.stringify(result.errors ?? []).slice(0, 2000)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
    const broken = structuredClone(committedOpenApi()) as unknown as Record<string, unknown>;
    (broken.paths as Record<string, Record<string, unknown>>)["/api/posts"] = { get: { responses: "none" } };
    expect((await new Validator().validate(broken as never)).valid).toBe(false);
  });

  it("has every route of the handler's table, and nothing else", () => {
    const doc = openApiDocument(operations);
    const fromTable = routes.map((route) => `${route.method} ${openApiPath(route.path)}`);
    expect(documented(doc).sort()).toEqual([...fromTable].sort());
    // Each operation names its operation id, access and auth scheme.
    for (const route of routes) {
      const op = doc.paths[openApiPath(route.path)]?.[route.method.toLowerCase()] as Record<string, unknown>;
      expect(String(op.operationId).startsWith(route.operation), route.path).toBe(true);
      const access = operations.find((o) => o.id === route.operation)?.access;
      expect(op["x-quire-access"]).toBe(access);
      expect(op.security).toEqual(
        access === "public"
          ? []
          : access === "internal"
            ? [{ internalAdminToken: [] }]
            : [{ ownerToken: [] }],
      );
      expect(Object.keys(op.responses as object)).toContain(String(route.status ?? 200));
    }
    const ids = documented(doc).map((key) => {
      const [method, path] = key.split(" ") as [string, string];
      return (doc.paths[path]?.[method.toLowerCase()] as { operationId?: string } | undefined)?.operationId;
    });
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("picks up a route added to the table on its own", () => {
    const extra = [
      ...routes,
      {
        method: "GET" as const,
        path: "/api/extra/:id",
        operation: "posts.get" as const,
        input: "query" as const,
      },
    ];
    const doc = openApiDocument(operations, extra);
    const op = doc.paths["/api/extra/{id}"]?.get as { parameters: { name: string; in: string }[] };
    expect(op.parameters).toContainEqual(expect.objectContaining({ name: "id", in: "path" }));
  });

  it("describes inputs from the operations' schemas: path, query and body fields", () => {
    const doc = openApiDocument(operations);
    const list = doc.paths["/api/threads"]?.get as {
      parameters: { name: string; in: string; schema: unknown }[];
    };
    expect(list.parameters.find((p) => p.name === "limit")).toMatchObject({
      in: "query",
      schema: { type: "integer" },
    });
    const create = doc.paths["/api/posts"]?.post as {
      requestBody: { content: Record<string, { schema: { required: string[]; properties: object } }> };
    };
    const body = create.requestBody.content["application/json"]?.schema;
    expect(body?.required).toEqual(["format"]);
    expect(Object.keys(body?.properties ?? {})).toEqual(
      expect.arrayContaining(["title", "bodyMarkdown", "attachments"]),
    );
    const update = doc.paths["/api/posts/{id}"]?.put as {
      requestBody: { content: Record<string, { schema: { properties: object } }> };
    };
    expect(
      Object.keys(update.requestBody.content["application/json"]?.schema.properties ?? {}),
    ).not.toContain("id");
    const upload = doc.paths["/api/upload"]?.post as { requestBody: { content: Record<string, unknown> } };
    expect(Object.keys(upload.requestBody.content)).toEqual(["multipart/form-data"]);
  });

  it("is served at /api/openapi.json, with the site's prefix as its server", async () => {
    const s = await createTestSite();
    const res = await s.call("GET", "/api/openapi.json", undefined, { authorization: "" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...openApiDocument(operations), servers: [{ url: "/" }] });
    const prefixed = await createTestSite({ engineConfig: { settings: { sitePathPrefix: "/blog" } } });
    const under = await prefixed.call("GET", "/blog/api/openapi.json");
    expect(under.body.servers).toEqual([{ url: "/blog" }]);
  });
});

describe("response schemas", () => {
  it("every /api operation answering JSON declares its output schema, and the document carries it", () => {
    const doc = openApiDocument(operations);
    const missing: string[] = [];
    for (const route of routes) {
      if (!route.path.startsWith("/api/") || route.status === 204) continue;
      const operation = operations.find((o) => o.id === route.operation);
      const op = doc.paths[openApiPath(route.path)]?.[route.method.toLowerCase()] as {
        responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }>;
      };
      const json = op.responses[String(route.status ?? 200)]?.content?.["application/json"];
      if (!json) continue;
      if (!operation?.output) missing.push(`${route.method} ${route.path} (${route.operation})`);
      else {
        const name = String(json.schema.$ref).replace("#/components/schemas/", "");
        expect(doc.components.schemas, route.path).toHaveProperty(name);
      }
    }
    expect(missing).toEqual([]);
  });

  it("fit every worked answer exactly: no key the schema lacks, no value of another type", async () => {
    const examples = await workedExamples();
    const router = createRouter(routes);
    let checked = 0;
    const misfits: string[] = [];
    for (const [key, example] of examples) {
      if (example.status >= 300 || !example.responseHeaders["content-type"]?.startsWith("application/json"))
        continue;
      const [method, routePath] = key.split(" ") as [string, string];
      const match = router.match(method, routePath.replace(/:([A-Za-z0-9_]+)/g, "x"));
      const output = operations.find((o) => o.id === match?.route.operation)?.output;
      if (!output) continue;
      const answer = JSON.parse(example.response);
      const parsed = output.safeParse(answer);
      if (!parsed.success) misfits.push(`${key}: ${JSON.stringify(parsed.error.issues).slice(0, 500)}`);
      // Objects strip keys they do not list: an answer with an undocumented key comes back different.
      else if (!isDeepStrictEqual(parsed.data, answer))
        misfits.push(`${key}: ${extraKeys(answer, parsed.data)}`);
      checked++;
    }
    expect(misfits).toEqual([]);
    expect(checked).toBeGreaterThan(55);
  }, 60_000);

  it("catch a wrong shape (the check above can fail)", () => {
    const post = operations.find((o) => o.id === "posts.create")?.output;
    expect(post?.safeParse({ id: "pst_1" }).success).toBe(false);
    const media = operations.find((o) => o.id === "media.get")?.output;
    const answer = {
      type: "text",
      id: "med_1",
      postId: null,
      mediaKind: "text",
      mimeType: "text/markdown",
      originalName: "a.md",
      size: 1,
      width: null,
      height: null,
      durationSeconds: null,
      alt: null,
      blurhash: null,
      waveform: null,
      summary: null,
      chars: 1,
      createdAt: 1,
      updatedAt: 1,
      contentFormat: "markdown",
      surprise: 1,
    };
    expect(media?.parse(answer)).not.toEqual(answer);
  });
});

describe("docs/openapi.json and docs/api.md", () => {
  it("are what `pnpm openapi` generates from the code (run it when this fails)", async () => {
    const examples = await workedExamples();
    const doc = committedDocument(examples);
    expect(readFileSync(new URL("openapi.json", docs), "utf8")).toBe(`${JSON.stringify(doc, null, 2)}\n`);
    expect(readFileSync(new URL("api.md", docs), "utf8")).toBe(renderApiMarkdown(doc, examples));
    // The committed copy is the served document plus the worked answers as examples.
    const served = openApiDocument(operations) as unknown as {
      paths: Record<string, Record<string, unknown>>;
    };
    const stripped = JSON.parse(JSON.stringify(doc), (key, value) =>
      // Error examples ({ error, code }) are the served document's own; worked answers are added.
      key === "example" &&
      typeof value === "object" &&
      value !== null &&
      !("code" in value && "error" in value)
        ? undefined
        : value,
    );
    expect(stripped.paths).toEqual(served.paths);
  }, 60_000);

  it("have worked examples whose answers match the documented success status and body type", async () => {
    const doc = openApiDocument(operations);
    const examples = await workedExamples();
    expect(examples.size).toBeGreaterThan(60);
    for (const [key, example] of examples) {
      const [method, routePath] = key.split(" ") as [string, string];
      const op = doc.paths[openApiPath(routePath)]?.[method.toLowerCase()] as {
        responses: Record<string, { content?: Record<string, unknown> }>;
      };
      expect(op, key).toBeDefined();
      expect(Object.keys(op.responses), key).toContain(String(example.status));
      const documentedType = Object.keys(op.responses[String(example.status)]?.content ?? {})[0];
      const sentType = example.responseHeaders["content-type"];
      if (documentedType === undefined) {
        // 204: no body.
        expect(example.response, key).toBe("");
      } else if (documentedType === "application/json") {
        expect(sentType, key).toMatch(/^application\/json/);
        const body = JSON.parse(example.response);
        expect(typeof body === "object" && body !== null && !Array.isArray(body), key).toBe(true);
      } else if (documentedType === "*/*") {
        // A document outside /api: anything but the API's JSON.
        expect(sentType, key).not.toMatch(/^application\/json/);
      } else {
        expect(sentType, key).toBe(documentedType);
      }
    }
  }, 60_000);
});

/** The paths of keys `sent` has and `kept` lost (what a schema did not list). */
function extraKeys(sent: unknown, kept: unknown, at = ""): string {
  if (Array.isArray(sent) && Array.isArray(kept)) {
    return sent
      .map((item, i) => extraKeys(item, kept[i], `${at}[${i}]`))
      .filter(Boolean)
      .join(", ");
  }
  if (typeof sent !== "object" || sent === null || typeof kept !== "object" || kept === null) {
    return isDeepStrictEqual(sent, kept) ? "" : `${at || "value"} changed`;
  }
  return Object.keys(sent)
    .map((key) =>
      key in kept
        ? extraKeys(
            (sent as Record<string, unknown>)[key],
            (kept as Record<string, unknown>)[key],
            `${at}.${key}`,
          )
        : `${at}.${key} not in the schema`,
    )
    .filter(Boolean)
    .join(", ");
}
