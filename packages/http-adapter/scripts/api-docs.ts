/**
 * docs/openapi.json and docs/api.md, generated. The OpenAPI document comes from the route table
 * and the operations' schemas; the worked examples in docs/api.md are real: a scenario runs every
 * request below through the Fetch handler on a fresh test engine (fixed clock, sequential IDs, so
 * the answers are the same on every run and on both databases) and prints what it answered.
 * `pnpm openapi` writes both files; packages/http-adapter/test/openapi.test.ts fails when the
 * committed copies are stale.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { operations, signGithubDelivery } from "@quire/core";
import { createTestEngine } from "@quire/core/testing";
import { createFsStorage } from "@quire/storage-fs";
import {
  interceptGithubApi,
  startGithubStandIn,
} from "../../core/src/github-sync/testing/github-stand-in.js";
import { createHandler } from "../src/handler.js";
import { type OpenApiDocument, openApiDocument } from "../src/openapi.js";
import { createRouter } from "../src/router.js";
import { routes } from "../src/routes.js";
import { botApiBehaviour, interceptBotApi } from "../test/telegram-bot-api.js";

/** One request of the scenario and what the handler answered. */
export interface WorkedExample {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: unknown;
  status: number;
  responseHeaders: Record<string, string>;
  response: string;
}

const shownHeaders = ["allow", "www-authenticate", "quire-unknown-fields", "content-type"];

/** Runs the scenario: the first answer per route (`METHOD /path/:param`) is kept. */
export async function workedExamples(): Promise<Map<string, WorkedExample>> {
  const root = mkdtempSync(path.join(tmpdir(), "quire-api-docs-"));
  const { engine, cleanup } = await createTestEngine({
    storage: createFsStorage({ root, publicBaseUrl: "/media" }),
    // Small enough that the scenario's video goes by the multipart relay, in three parts.
    config: { uploadMultipartThreshold: 64 * 1024, uploadPartSize: 32 * 1024 },
  });
  const handler = createHandler(engine, {
    devApiToken: "dev-token",
    internalAdminToken: "admin-token",
    clientAddress: () => "127.0.0.1",
  });
  const router = createRouter(routes);
  const examples = new Map<string, WorkedExample>();
  // A stored part's ETag is random (each stored version of a part gets its own, so an older one
  // cannot complete the upload): the examples show a stable stand-in so the docs do not change
  // on every run.
  const stable = new Map<string, string>();
  const steady = <T>(value: T): T => {
    if (stable.size === 0) return value;
    let json = JSON.stringify(value);
    for (const [real, shown] of stable) json = json.replaceAll(real, shown);
    return JSON.parse(json) as T;
  };
  const call = async (
    method: string,
    path: string,
    body?: unknown,
    extra: Record<string, string> = {},
    // biome-ignore lint/suspicious/noExplicitAny: answers are read field by field
  ): Promise<any> => {
    const bytes = body instanceof Uint8Array;
    const form = body instanceof FormData;
    const headers: Record<string, string> = {
      authorization: path.startsWith("/api/internal/") ? "Bearer admin-token" : "Bearer dev-token",
      ...(body !== undefined && !bytes && !form ? { "content-type": "application/json" } : {}),
      ...extra,
    };
    delete headers["x-expect-error"];
    // Public reads and webhooks carry no token (a webhook has its own secret header).
    const noToken =
      path.startsWith("/api/public/") ||
      path.startsWith("/api/discover/") ||
      (method === "POST" && path === "/api/telegram") ||
      (method === "POST" && path === "/api/github-sync/webhook");
    if (noToken || !path.startsWith("/api/")) delete headers.authorization;
    const response = await handler(
      new Request(`http://localhost${path}`, {
        method,
        headers,
        ...(body !== undefined
          ? { body: bytes ? (body as Uint8Array<ArrayBuffer>) : form ? body : JSON.stringify(body) }
          : {}),
      }),
    );
    const type = response.headers.get("content-type") ?? "";
    const isText = type === "" || /json|xml|^text\//.test(type);
    const text = isText ? await response.text() : await binaryNote(response, type);
    const url = new URL(path, "http://localhost");
    const match = router.match(method, url.pathname);
    const key = match ? `${method} ${match.route.path}` : `${method} ${url.pathname}`;
    const previous = examples.get(key);
    if (!previous || (previous.status >= 400 && response.status < 400)) {
      examples.set(key, {
        method,
        path,
        // fetch writes a form's Content-Type (with its boundary) itself.
        headers: form ? { ...headers, "content-type": "multipart/form-data; boundary=…" } : headers,
        ...(body !== undefined
          ? {
              body: bytes
                ? `(${body.length} bytes of ${headers["content-type"] ?? "application/octet-stream"})`
                : form
                  ? formText(body)
                  : steady(body),
            }
          : {}),
        status: response.status,
        responseHeaders: Object.fromEntries(
          [...response.headers].filter(([name]) => shownHeaders.includes(name)),
        ),
        response: steady(text),
      });
    }
    if (response.status >= 400 && !extra["x-expect-error"]) {
      throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
    }
    return text !== "" && response.headers.get("content-type")?.startsWith("application/json")
      ? JSON.parse(text)
      : text;
  };
  try {
    // Posts and Threads
    const post = await call("POST", "/api/posts", {
      format: "note",
      title: "Hello",
      bodyMarkdown: "First *post*.",
    });
    const reply = await call("POST", "/api/posts", {
      format: "note",
      bodyMarkdown: "A reply.",
      replyToId: post.id,
    });
    await call("GET", "/api/posts?limit=1");
    await call("GET", "/api/posts/slug?mode=suggest&title=Second%20post");
    await call("GET", `/api/posts/${post.id}`);
    await call("PUT", `/api/posts/${post.id}`, { title: "Hello, world" });
    await call("GET", "/api/threads?limit=1");
    await call("GET", `/api/threads/${post.id}`);
    await call("GET", `/api/threads/${post.id}/posts?limit=2`);
    await call("GET", "/api/public/threads?limit=1");
    await call("GET", `/api/public/threads/${post.slug}`);
    await call("GET", `/api/public/threads/${post.slug}/posts?limit=2`);
    await call("GET", `/api/public/posts/${post.slug}`);
    await call("GET", "/api/search?q=reply");
    await call("GET", `/api/public/resolve?path=/${post.slug}`);
    // Languages and translations
    await call("PUT", "/api/settings", { ADDITIONAL_LANGUAGES: "fr", MULTILINGUAL_ENABLED: "true" });
    await call("PUT", `/api/posts/${post.id}/language`, { language: "en" });
    const french = await call("POST", "/api/posts", {
      format: "note",
      title: "Bonjour",
      bodyMarkdown: "Salut.",
      language: "fr",
    });
    await call("GET", `/api/posts/${post.id}/translations/candidates?q=Bonjour`);
    // Resolved before the link: after it, both are in one group and a second link would be 409.
    await call("GET", `/api/posts/${post.id}/translations/resolve?url=/${french.slug}`);
    await call("POST", `/api/posts/${post.id}/translations`, { postId: french.id });
    await call("GET", `/api/posts/${post.id}/translations`);
    await call("DELETE", `/api/posts/${french.id}/translations`);
    // Collections, directory items, smart collections
    const travel = await call("POST", "/api/collections", { slug: "travel", title: "Travel" });
    await call("GET", "/api/collections");
    await call("GET", "/api/collections/slug?mode=check&slug=travel");
    await call("GET", `/api/collections/${travel.id}`);
    await call("PUT", `/api/collections/${travel.id}`, { description: "Trips and places." });
    await call("POST", `/api/collections/${travel.id}/threads`, { threadId: post.id });
    await call("PUT", `/api/collections/${travel.id}/threads/${post.id}/pin`);
    await call("DELETE", `/api/collections/${travel.id}/threads/${post.id}/pin`);
    const link = await call("POST", "/api/collections/directory-items", {
      type: "link",
      label: "Elsewhere",
      url: "https://example.com/",
    });
    await call("PUT", `/api/collections/directory-items/${link.id}`, { label: "Somewhere else" });
    await call("PUT", `/api/collections/directory-items/${link.id}/move`, {});
    await call("DELETE", `/api/collections/directory-items/${link.id}`);
    const notes = await call("POST", "/api/smart-collections", {
      slug: "notes",
      title: "Notes",
      selection: { format: "note" },
    });
    await call("GET", "/api/smart-collections");
    await call("GET", "/api/smart-collections/slug?mode=suggest&title=Quotes");
    await call("POST", "/api/smart-collections/preview", { selection: { replies: true } });
    await call("GET", `/api/smart-collections/${notes.id}`);
    await call("PUT", `/api/smart-collections/${notes.id}`, { title: "All notes" });
    await call("GET", `/api/smart-collections/${notes.id}/threads?limit=1`);
    await call("GET", "/api/public/smart-collections/notes/threads?limit=1");
    // Navigation
    const nav = await call("POST", "/api/nav-items", { type: "link", label: "About", url: "/about" });
    await call("GET", "/api/nav-items");
    await call("PUT", `/api/nav-items/${nav.id}`, { label: "About me" });
    await call("PUT", `/api/nav-items/${nav.id}/move`, {});
    await call("DELETE", `/api/nav-items/${nav.id}`);
    // Custom URLs
    const custom = await call("POST", "/api/custom-urls", {
      path: "/hello-again",
      targetType: "post",
      targetId: post.id,
    });
    await call("GET", "/api/custom-urls");
    await call("PUT", `/api/custom-urls/${custom.id}`, { path: "/hi" });
    await call("DELETE", `/api/custom-urls/${custom.id}`);
    // Settings
    await call("GET", "/api/settings");
    await call("PUT", "/api/settings/import", { ADDITIONAL_LANGUAGES: "fr" });
    await call("DELETE", "/api/settings/SITE_FOOTER");
    // Tokens (internal)
    const token = await call("POST", "/api/internal/tokens", { name: "CI" });
    await call("GET", "/api/internal/tokens");
    await call("GET", "/api/internal/tokens/health?staleDays=30");
    await call("POST", "/api/internal/tokens/purge", { unusedDays: 365, dryRun: true });
    await call("DELETE", `/api/internal/tokens/${token.id}`);
    // Media and uploads (answered by the store this engine has; see docs/media.md)
    const png = pngBytes(4, 3, 64);
    const upload = await call("POST", "/api/uploads/init", {
      filename: "dot.png",
      contentType: "image/png",
      size: png.length,
    });
    await call("PUT", `/api/uploads/${upload.id}/body`, png, { "content-type": "image/png" });
    const media = await call("POST", `/api/uploads/${upload.id}/complete`, { alt: "A small dot" });
    const dropped = await call("POST", "/api/uploads/init", {
      filename: "b.png",
      contentType: "image/png",
      size: png.length,
    });
    await call("POST", `/api/uploads/${dropped.id}/abort`);
    // A video by the multipart relay: its parts, then its poster frame, then complete.
    const video = mp4Bytes(80 * 1024);
    const videoUpload = await call("POST", "/api/uploads/init", {
      filename: "clip.mp4",
      contentType: "video/mp4",
      size: video.length,
    });
    const partSize = videoUpload.transport.partSize as number;
    const parts: { partNumber: number; etag: string }[] = [];
    for (let part = 1; (part - 1) * partSize < video.length; part++) {
      const stored = await call(
        "PUT",
        `/api/uploads/${videoUpload.id}/part?partNumber=${part}`,
        video.slice((part - 1) * partSize, part * partSize),
        { "content-type": "application/octet-stream" },
      );
      parts.push({ partNumber: stored.partNumber, etag: stored.etag });
      stable.set(String(stored.etag).replaceAll('"', ""), `etag-of-part-${part}`);
    }
    const partExample = examples.get("PUT /api/uploads/:id/part");
    if (partExample) partExample.response = steady(partExample.response);
    await call("PUT", `/api/uploads/${videoUpload.id}/poster`, webpBytes(4, 3, 96), {
      "content-type": "image/webp",
    });
    await call("POST", `/api/uploads/${videoUpload.id}/complete`, { alt: "A short clip", parts });
    await call("GET", "/api/media?limit=1");
    await call("GET", `/api/media/${media.id}`);
    await call("PUT", `/api/media/${media.id}`, { alt: "A dot, four pixels wide" });
    await call("DELETE", `/api/media/${media.id}`);
    const formData = new FormData();
    formData.set("alt", "Another dot");
    formData.set("file", new Blob([png], { type: "image/png" }), "dot2.png");
    await call("POST", "/api/upload", formData);
    // A text attachment's content
    const withText = await call("POST", "/api/posts", {
      format: "note",
      bodyMarkdown: "With notes.",
      attachments: [
        { type: "text", content: "# Notes\n\nLonger text kept beside the post.", summary: "Notes" },
      ],
    });
    await call("GET", `/api/attachments/${withText.attachments[0].id}/content`);
    // Documents outside /api, and the Hugo export
    await call("GET", "/robots.txt");
    await call("GET", "/sitemap.xml");
    await call("GET", "/rss");
    await call("GET", "/feeds/json");
    await call("GET", "/feeds/latest/atom");
    await call("GET", "/feeds/featured/json");
    await call("GET", "/feeds/collections/travel/json");
    // Discovery (the site must be listed: DISCOVER=latest; docs/discovery.md)
    await call("PUT", "/api/settings", { DISCOVER: "latest" });
    await call("GET", `/api/discover/posts?id=${post.id},${reply.id}`);
    // The chat-bot, against a stand-in of the Bot API at its real address (no network; docs/telegram.md)
    const botApi = botApiBehaviour();
    const restoreFetch = interceptBotApi(botApi);
    try {
      await call("PUT", "/api/telegram/connection", {
        botToken: botApi.token,
        webhookUrl: "https://blog.example/api/telegram",
      });
      const bindCode = await call("POST", "/api/telegram/bind-codes");
      const secret = String(botApi.calls.find((c) => c.method === "setWebhook")?.params.secret_token);
      const chat = { id: 1111111, type: "private", first_name: "Test", last_name: "Lastname" };
      // The chat is bound in-process, so that the webhook's worked example is a published note.
      await engine.telegram.webhook({
        body: new TextEncoder().encode(
          JSON.stringify({
            update_id: 9999,
            message: { message_id: 1, date: 1, chat, text: `/start ${bindCode.code}` },
          }),
        ),
        headers: { "x-chat-bot-api-secret-token": secret },
      });
      await call(
        "POST",
        "/api/telegram",
        {
          update_id: 10000,
          message: {
            message_id: 2,
            date: 1441645532,
            chat,
            text: "Bold and italics",
            entities: [
              { type: "italic", offset: 9, length: 7 },
              { type: "bold", offset: 0, length: 4 },
            ],
          },
        },
        { "x-chat-bot-api-secret-token": secret },
      );
      await call("GET", "/api/telegram/status");
      await call("DELETE", "/api/telegram/connection");
    } finally {
      restoreFetch();
    }
    // Code-host sync, against a stand-in of GitHub's REST API at its real address (no network; docs/github-sync.md)
    const github = await startGithubStandIn();
    const restoreGithub = interceptGithubApi(github);
    try {
      github.createRepo("octocat", "blog", {
        token: "ghp_example",
        files: { "config.toml": 'theme = "mine"\n' },
      });
      await call("PUT", "/api/github-sync", {
        owner: "octocat",
        repo: "blog",
        token: "ghp_example",
        webhookUrl: "https://blog.example/api/github-sync/webhook",
      });
      await call("GET", "/api/github-sync");
      await call("POST", "/api/github-sync/push");
      // The owner edits the post's page on GitHub; GitHub delivers the push, signed with the hook's secret.
      const [pagePath, pageText] = [...github.files("octocat", "blog", "main")].find(
        ([file, text]) => file.endsWith("/_index.md") && text.includes(`"id":"${post.id}"`),
      ) as [string, string];
      const pushed = github.pushCommit(
        "octocat",
        "blog",
        "main",
        { [pagePath]: `${pageText.trimEnd()}\n\nEdited on GitHub.\n` },
        "Add a line",
      );
      const delivery = {
        ref: "refs/heads/main",
        before: pushed.before,
        after: pushed.after,
        repository: { name: "blog", full_name: "octocat/blog" },
        head_commit: { id: pushed.after, message: "Add a line" },
        commits: [{ id: pushed.after, message: "Add a line", added: [], removed: [], modified: [pagePath] }],
      };
      const hookSecret = [...github.repo("octocat", "blog").hooks.values()][0]?.secret ?? "";
      await call("POST", "/api/github-sync/webhook", delivery, {
        "x-github-event": "push",
        "x-github-delivery": "72d3162e-cc78-11e3-81ab-4c9367dc0958",
        "x-hub-signature-256": await signGithubDelivery(hookSecret, JSON.stringify(delivery)),
      });
      await call("DELETE", "/api/github-sync");
    } finally {
      restoreGithub();
      await github.close();
    }
    await call("POST", "/api/export/hugo", { drafts: false });
    // Maintenance (internal): each call one bounded batch; pass nextCursor back until it is null
    await call("POST", "/api/internal/uploads/cleanup", {});
    await call("POST", "/api/internal/search/reindex", { limit: 2 });
    await call("POST", "/api/internal/posts/rebuild-html", { dryRun: true, limit: 2 });
    // Refusals: what an error answer looks like
    const expectError = { "x-expect-error": "1" };
    await call("GET", "/api/posts?limit=abc", undefined, expectError);
    await call("POST", "/api/collections", { title: "No slug" }, expectError);
    // Clean-up writes
    await call("DELETE", `/api/collections/${travel.id}/threads/${post.id}`);
    await call("DELETE", `/api/collections/${travel.id}`);
    await call("DELETE", `/api/smart-collections/${notes.id}`);
    await call("DELETE", `/api/posts/${reply.id}`);
  } finally {
    await cleanup();
    rmSync(root, { recursive: true, force: true });
  }
  return examples;
}

/**
 * The OpenAPI document as committed in docs/openapi.json: the handler's own document (served at
 * /api/openapi.json) with each worked example's answer as the `example` of its success response,
 * so the machine-readable copy shows real response shapes too.
 */
export function committedOpenApi(examples: Map<string, WorkedExample>): OpenApiDocument {
  const doc = openApiDocument(operations);
  for (const [key, example] of examples) {
    const [method, routePath] = key.split(" ") as [string, string];
    const path = routePath.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
    const op = doc.paths[path]?.[method.toLowerCase()] as
      | { responses: Record<string, { content?: Record<string, Record<string, unknown>> }> }
      | undefined;
    const media = op?.responses[String(example.status)]?.content?.["application/json"];
    if (media && example.response !== "") media.example = JSON.parse(example.response);
  }
  return doc;
}

/** A PNG of this size (its header is real; the rest is padding), enough for the engine to read it. */
function pngBytes(width: number, height: number, size: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(size);
  const be32 = (n: number) => [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
  const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));
  bytes.set([
    0x89,
    0x50,
    0x4e,
    0x47,
    0x0d,
    0x0a,
    0x1a,
    0x0a,
    ...be32(13),
    ...ascii("IHDR"),
    ...be32(width),
    ...be32(height),
    8,
    6,
    0,
    0,
    0,
  ]);
  return bytes;
}

/** An MP4 that starts with its `ftyp` box, padded to `size`. */
function mp4Bytes(size: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(size);
  bytes.set([0, 0, 0, 24, ...ascii("ftypisom"), 0, 0, 2, 0, ...ascii("isomiso2")]);
  return bytes;
}

/** A lossless WebP (VP8L) header of this size, padded to `size`. */
function webpBytes(width: number, height: number, size: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(size);
  const le32 = (n: number) => [n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, (n >>> 24) & 0xff];
  const bits = (width - 1) | ((height - 1) << 14);
  bytes.set([
    ...ascii("RIFF"),
    ...le32(size - 8),
    ...ascii("WEBPVP8L"),
    ...le32(size - 20),
    0x2f,
    ...le32(bits),
  ]);
  return bytes;
}

function ascii(text: string): number[] {
  return [...text].map((c) => c.charCodeAt(0));
}

type Schema = Record<string, unknown>;

/** docs/api.md: the reference for people, from the OpenAPI document and the worked examples. */
export function renderApiMarkdown(doc: OpenApiDocument, examples: Map<string, WorkedExample>): string {
  const out: string[] = [];
  out.push(
    "# HTTP API reference",
    "",
    "<!-- Generated by `pnpm openapi` from the route table, the operations' schemas and a scenario run",
    "     on a test engine (scripts/api-docs.ts). Do not edit by hand; a test fails when it is stale. -->",
    "",
    "Every endpoint of the handler (`createHandler` of `@quire/http-adapter`), grouped by resource. The",
    "same description, machine-readable, is `docs/openapi.json` (OpenAPI 3.1), also served by every",
    "handler at `GET /api/openapi.json` (that copy without the example answers). Errors and their",
    "rules are in [errors.md](errors.md); what each",
    "resource means is in its own document ([posts.md](posts.md), [threads.md](threads.md),",
    "[collections.md](collections.md), [smart-collections.md](smart-collections.md), [media.md](media.md),",
    "[custom-urls.md](custom-urls.md), [navigation.md](navigation.md), [settings.md](settings.md),",
    "[languages.md](languages.md), [search.md](search.md)).",
    "",
    "## Conventions",
    "",
    "- Paths are below the site's path prefix (`SITE_PATH_PREFIX`, empty by default).",
    "- **Auth.** `owner` endpoints take `Authorization: Bearer <token>` (an API token, the dev token on",
    "  a local host), the owner's session cookie from `/signin` (authentication.md; a write with the",
    "  cookie must come from the site itself or a listed origin), or the embedding app's session through",
    "  its `authenticate` hook; `internal` ones take",
    "  the operator's `INTERNAL_ADMIN_TOKEN`; `public` ones take nothing and answer 404 while the public",
    "  API is off (`PUBLIC_API_ENABLED`), except discovery (open while the site is listed, discovery.md)",
    "  and the webhooks (their own signature or secret header: github-sync.md, telegram.md). A refused",
    '  owner request answers 401 with `WWW-Authenticate: Bearer realm="quire"`.',
    "- **Answers** are described by a schema each (`components/schemas` in openapi.json). Public `GET`",
    "  answers carry an `ETag`; send it back in `If-None-Match` for a 304 (caching.md). A client over a",
    "  rate limit gets 429 `RATE_LIMITED` with `Retry-After`; a suspended hosted site answers 503",
    "  `SITE_UNAVAILABLE` (hosting.md).",
    "- **Bodies** are JSON objects, sent with `Content-Type: application/json`; query values are text",
    "  converted to each field's type (numbers, `true`/`false`, lists as `a,b` or repeated keys).",
    "- **Unknown fields are ignored.** Send `Prefer: warn-unknown-fields` to have them named in a",
    "  `Quire-Unknown-Fields` response header (see errors.md).",
    "- Times are Unix seconds; IDs carry a type prefix (`pst_`, `col_`, `med_`, …).",
    "- The worked examples below are real answers of a fresh test engine (fixed clock at 1700000000,",
    "  sequential IDs), printed as the handler sent them.",
    "",
  );
  const byTag = new Map<string, [string, string, Schema][]>();
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      const op = operation as Schema;
      const tag = (op.tags as string[])[0] as string;
      byTag.set(tag, [...(byTag.get(tag) ?? []), [method.toUpperCase(), path, op]]);
    }
  }
  out.push("## Endpoints", "");
  for (const [tag, entries] of byTag) {
    out.push(
      `- **${tag}**: ${entries.map(([m, p, op]) => `[${m} ${p}](#${anchor(op.operationId as string, m, p)})`).join(", ")}`,
    );
  }
  out.push("");
  for (const [tag, entries] of byTag) {
    out.push(`## ${tag}`, "");
    for (const [method, path, op] of entries) out.push(...renderOperation(method, path, op, examples));
  }
  return `${out.join("\n").trimEnd()}\n`;
}

function anchor(operationId: string, method: string, path: string): string {
  return (
    `${method} ${path}`
      .toLowerCase()
      .replace(/[^a-z0-9 -]/g, "")
      .replace(/ /g, "-") || operationId
  );
}

function renderOperation(
  method: string,
  path: string,
  op: Schema,
  examples: Map<string, WorkedExample>,
): string[] {
  const out: string[] = [`### ${method} ${path}`, ""];
  out.push(`${op.summary as string}`, "");
  const access = op["x-quire-access"] as string;
  out.push(
    `Operation \`${op.operationId as string}\` · access: **${access}**${hintText(op["x-quire-hints"])}`,
    "",
  );
  const parameters = (op.parameters ?? []) as Schema[];
  if (parameters.length > 0) {
    out.push("| Parameter | In | Type | Required |", "|---|---|---|---|");
    for (const p of parameters) {
      out.push(
        `| \`${p.name as string}\` | ${p.in as string} | ${typeText(p.schema as Schema)} | ${p.required ? "yes" : "no"} |`,
      );
    }
    out.push("");
  }
  const body = op.requestBody as Schema | undefined;
  if (body) {
    const [type, media] = Object.entries(body.content as Record<string, Schema>)[0] as [string, Schema];
    const schema = media.schema as Schema;
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    const required = new Set((schema.required ?? []) as string[]);
    if (Object.keys(properties).length > 0) {
      out.push(`Body (\`${type}\`):`, "", "| Field | Type | Required |", "|---|---|---|");
      for (const [name, field] of Object.entries(properties)) {
        out.push(`| \`${name}\` | ${typeText(field)} | ${required.has(name) ? "yes" : "no"} |`);
      }
      out.push("");
    } else {
      out.push(`Body: \`${type}\`. ${(body.description as string | undefined) ?? ""}`.trimEnd(), "");
    }
  }
  const responses = op.responses as Record<string, Schema>;
  const success = Object.keys(responses).find((code) => code.startsWith("2")) as string;
  const errors = Object.keys(responses).filter((code) => !code.startsWith("2"));
  out.push(`Answers **${success}** on success; errors ${errors.join(", ")} in the error shape.`, "");
  const routePath = path.replace(/\{([^}]+)\}/g, ":$1");
  const example = examples.get(`${method} ${routePath}`);
  if (example) {
    out.push("Example:", "", "```http", `${example.method} ${example.path}`);
    for (const [name, value] of Object.entries(example.headers)) out.push(`${headerName(name)}: ${value}`);
    if (example.body !== undefined) {
      out.push("", typeof example.body === "string" ? example.body : JSON.stringify(example.body, null, 2));
    }
    out.push("```", "", "```http", `HTTP/1.1 ${example.status}`);
    for (const [name, value] of Object.entries(example.responseHeaders))
      out.push(`${headerName(name)}: ${value}`);
    if (example.response !== "") {
      let shown = example.response;
      try {
        shown = JSON.stringify(JSON.parse(example.response), null, 2);
      } catch {}
      out.push("", shown);
    }
    out.push("```", "");
  } else {
    out.push(
      "No worked example: the scenario does not run this endpoint (see the resource's own document for one).",
      "",
    );
  }
  return out;
}

function hintText(hints: unknown): string {
  if (!hints || typeof hints !== "object") return "";
  const names = Object.keys(hints as object);
  return names.length > 0 ? ` · ${names.join(", ")}` : "";
}

function headerName(name: string): string {
  return name.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => `${dash}${c.toUpperCase()}`);
}

/** A short type for a table cell: `string ≤ 300`, `integer 0–5`, `"note" \| "link"`, `string[]`, `… or null`. */
function typeText(schema: Schema | undefined): string {
  if (!schema) return "any";
  const choices = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (choices) return choices.map((choice) => typeText(choice)).join(" or ");
  if (Array.isArray(schema.enum))
    return schema.enum.map((value) => `\`${JSON.stringify(value)}\``).join(" \\| ");
  if ("const" in schema) return `\`${JSON.stringify(schema.const)}\``;
  const type = Array.isArray(schema.type)
    ? schema.type.join(" or ")
    : ((schema.type as string | undefined) ?? "any");
  if (type === "array") return `${typeText(schema.items as Schema)}[]`;
  const bounds: string[] = [];
  if (schema.minLength !== undefined) bounds.push(`≥ ${schema.minLength} chars`);
  if (schema.maxLength !== undefined) bounds.push(`≤ ${schema.maxLength} chars`);
  // zod marks every integer with the safe-integer range; that says nothing to a reader.
  if (schema.minimum !== undefined && schema.minimum !== Number.MIN_SAFE_INTEGER)
    bounds.push(`≥ ${schema.minimum}`);
  if (schema.maximum !== undefined && schema.maximum !== Number.MAX_SAFE_INTEGER)
    bounds.push(`≤ ${schema.maximum}`);
  if (schema.contentEncoding === "base64" || schema.contentMediaType) bounds.push("bytes");
  return bounds.length > 0 ? `${type} (${bounds.join(", ")})` : type;
}

/** A multipart body as the reader should picture it. */
function formText(form: FormData): string {
  return [...form.entries()]
    .map(([name, value]) =>
      typeof value === "string"
        ? `(form field) ${name}=${value}`
        : `(file part) ${name}: ${(value as File).name}, ${value.type}, ${value.size} bytes`,
    )
    .join("\n");
}

/** A binary answer in the reference: its type, not its bytes (a ZIP's size varies with compression). */
async function binaryNote(response: Response, type: string): Promise<string> {
  await response.arrayBuffer();
  return `(the file's bytes, ${type})`;
}
