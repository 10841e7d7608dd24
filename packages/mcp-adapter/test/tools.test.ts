import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterEach, describe, expect, it } from "vitest";
import { createMcpSite, type McpSite } from "./support.js";

let site: McpSite;
afterEach(async () => {
  await site?.close();
});

interface ErrorResult {
  isError: true;
  content: { type: string; text: string }[];
  structuredContent: {
    error: string;
    code: string;
    details?: { formErrors: string[]; fieldErrors: Record<string, string[]> };
  };
}

async function call(client: Client, name: string, args: Record<string, unknown>) {
  return (await client.callTool({ name, arguments: args })) as unknown as
    | ErrorResult
    | { isError?: undefined; structuredContent: Record<string, unknown>; content: { text: string }[] };
}

async function expectValidationError(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  field: string,
) {
  const result = await call(client, name, args);
  expect(result.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
  const { structuredContent, content } = result as ErrorResult;
  expect(structuredContent.code).toBe("VALIDATION_ERROR");
  expect(Object.keys(structuredContent).sort()).toEqual(["code", "details", "error"]);
  expect(structuredContent.details?.fieldErrors[field], JSON.stringify(structuredContent)).toEqual([
    expect.any(String),
  ]);
  expect(content).toEqual([{ type: "text", text: structuredContent.error }]);
  return structuredContent;
}

async function counts() {
  const db = site.engine.context.db;
  const count = async (table: "posts" | "media") =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return { posts: await count("posts"), media: await count("media") };
}

describe("bad input to a tool", () => {
  it("is the HTTP API's VALIDATION_ERROR with details, as isError, and writes nothing", async () => {
    site = await createMcpSite();
    const client = await site.client();
    const post = await site.engine.posts.create({ format: "note", bodyMarkdown: "before" });
    const before = await counts();

    // Unknown arguments (a transport spelling, an old name, a typo).
    await expectValidationError(
      client,
      "site_posts_create",
      { format: "note", bodyMarkdown: "x", bogus: 1 },
      "bogus",
    );
    await expectValidationError(client, "site_threads_list", { include: "fold" }, "include");
    await expectValidationError(client, "site_posts_search", { query: "x" }, "query");
    await expectValidationError(client, "site_media_upload", { filename: "a.png", file: "AAAA" }, "file");
    // Wrong types: values, not query text.
    await expectValidationError(client, "site_posts_list", { limit: "10" }, "limit");
    await expectValidationError(client, "site_threads_list", { fold: "true" }, "fold");
    await expectValidationError(client, "site_posts_update", { id: post.id, pinned: "yes" }, "pinned");
    await expectValidationError(client, "site_posts_create", { format: "essay" }, "format");
    // Missing required arguments.
    await expectValidationError(client, "site_posts_get", {}, "id");
    await expectValidationError(client, "site_posts_create", {}, "format");
    await expectValidationError(client, "site_media_upload", { contentBase64: "AAAA" }, "filename");
    // Malformed IDs.
    await expectValidationError(client, "site_posts_get", { id: "pst_nope" }, "id");
    await expectValidationError(client, "site_posts_delete", { id: "med_01j0000000e008000000000001" }, "id");
    await expectValidationError(client, "site_threads_list_posts", { id: "42" }, "id");
    await expectValidationError(client, "site_media_get", { id: post.id }, "id");
    // Domain rules answer as over HTTP.
    await expectValidationError(
      client,
      "site_posts_create",
      { format: "note", body: "{}", bodyMarkdown: "x" },
      "body",
    );
    const unreadable = await call(client, "site_threads_list", { cursor: "not-a-cursor" });
    expect(unreadable.isError).toBe(true);
    expect((unreadable as ErrorResult).structuredContent.code).toBe("VALIDATION_ERROR");

    expect(await counts()).toEqual(before);
    expect((await site.engine.posts.get({ id: post.id })).bodyHtml).toBe("<p>before</p>");
  });

  it("takes arguments named like an object's own properties (constructor, __proto__) as the HTTP API takes those keys", async () => {
    site = await createMcpSite();
    const client = await site.client();
    const before = await site.engine.settings.get({});
    // Parsed from JSON, as an agent's arguments are: `__proto__` is a key like any other here.
    const args = (text: string) => JSON.parse(text) as Record<string, unknown>;
    await expectValidationError(
      client,
      "site_settings_update",
      args('{"__proto__":{"SITE_NAME":"Polluted"},"constructor":true}'),
      "constructor",
    );
    expect(await site.engine.settings.get({})).toEqual(before);
    const result = await call(
      client,
      "site_settings_update",
      args('{"__proto__":{"SITE_NAME":"Polluted"},"toString":"x","SITE_FOOTER":"Footer"}'),
    );
    expect(result.isError).toBeUndefined();
    const answer = result.structuredContent as { settings: Record<string, string>; rejectedKeys: string[] };
    expect(answer.rejectedKeys).toEqual(["toString"]);
    expect(answer.settings.SITE_FOOTER).toBe("Footer");
    expect(answer.settings.SITE_NAME).toBe(before.settings.SITE_NAME);

    // A tool that takes named arguments refuses `__proto__` as any argument it does not take (the
    // SDK's parse of the call would have turned it into the arguments' prototype, unseen).
    await expectValidationError(
      client,
      "site_posts_create",
      args('{"format":"note","title":"Kept out","__proto__":{"status":"draft"}}'),
      "__proto__",
    );
    expect((await site.engine.posts.list({})).posts).toEqual([]);
  });

  it("answers NOT_FOUND and CONFLICT with the spec's codes and no details", async () => {
    site = await createMcpSite();
    const client = await site.client();
    const missing = await call(client, "site_posts_get", { id: "pst_01j0000000e008000000000999" });
    expect(missing).toEqual({
      isError: true,
      content: [{ type: "text", text: expect.any(String) }],
      structuredContent: { error: expect.any(String), code: "NOT_FOUND" },
    });
    await call(client, "site_posts_create", { format: "note", bodyMarkdown: "a", slug: "taken" });
    const clash = await call(client, "site_posts_create", {
      format: "note",
      bodyMarkdown: "b",
      slug: "taken",
    });
    expect(clash.isError).toBe(true);
    expect((clash as ErrorResult).structuredContent.code).toBe("CONFLICT");
  });
});

describe("post-returning tools", () => {
  it("take content: markdown, the writes included (spec § MCP rule 4; create and update refused it)", async () => {
    site = await createMcpSite();
    const client = await site.client();
    const post = async (name: string, args: Record<string, unknown>) => {
      const result = await call(client, name, args);
      expect(result.isError, JSON.stringify(result.structuredContent)).toBeUndefined();
      return result.structuredContent as Record<string, unknown>;
    };
    const markdownView = (answer: Record<string, unknown>) => {
      expect(answer.bodyMarkdown).toBe("Some *text*.");
      for (const rendered of ["body", "bodyHtml", "bodyText"]) expect(answer).not.toHaveProperty(rendered);
    };
    const plain = await post("site_posts_create", {
      format: "note",
      bodyMarkdown: "Some *text*.",
      content: "markdown",
    });
    markdownView(plain);
    // A reply is written step by step and read back: the same answer.
    markdownView(
      await post("site_posts_create", {
        format: "note",
        bodyMarkdown: "Some *text*.",
        replyToId: plain.id,
        content: "markdown",
      }),
    );
    const edited = await post("site_posts_update", { id: plain.id, title: "Titled", content: "markdown" });
    markdownView(edited);
    expect(edited.title).toBe("Titled");
    // Without it, the rendered fields as before.
    const rendered = await post("site_posts_update", { id: plain.id, rating: 3 });
    expect(rendered.bodyHtml).toBe("<p>Some <em>text</em>.</p>");
    expect(rendered).not.toHaveProperty("bodyMarkdown");
    await expectValidationError(client, "site_posts_create", { format: "note", content: "html" }, "content");
  });
});

describe("site_media_upload", () => {
  const png = Uint8Array.from([
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 4, 0, 0, 0,
    3, 8, 6, 0, 0, 0, 0, 0, 0, 0,
  ]);
  const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");

  it("stores a base64 file through the one-shot upload path and answers its media record", async () => {
    site = await createMcpSite();
    const client = await site.client();
    const result = await call(client, "site_media_upload", {
      filename: "dot.png",
      contentType: "image/png",
      contentBase64: base64(png),
      alt: "A dot",
    });
    expect(result.isError, JSON.stringify(result)).toBeUndefined();
    const record = result.structuredContent as { id: string; alt: string; mimeType: string; size: number };
    expect(record).toMatchObject({ alt: "A dot", size: png.byteLength });
    expect(record).toEqual(await site.engine.media.get({ id: record.id }));
    // The upload path's type rules apply: an unsupported image type is refused, nothing stored.
    const refused = await call(client, "site_media_upload", {
      filename: "a.gif",
      contentType: "image/gif",
      contentBase64: base64(png),
    });
    expect(refused.isError).toBe(true);
    expect((refused as ErrorResult).structuredContent.code).toBe("VALIDATION_ERROR");
    expect((await site.engine.media.list({})).media).toHaveLength(1);
  });

  it("refuses a decoded size over the upload limit from the text's length, before decoding it", async () => {
    site = await createMcpSite({ config: { uploadMaxBytes: 1000 } });
    const client = await site.client();
    const before = await counts();
    // 1,400 characters of what is not base64 at all: decoding first would answer "not base64".
    const notDecoded = await expectValidationError(
      client,
      "site_media_upload",
      { filename: "big.bin", contentType: "application/octet-stream", contentBase64: "!".repeat(1400) },
      "contentBase64",
    );
    expect(notDecoded.error).toBe("contentBase64: The file is larger than 1000 bytes");
    expect(notDecoded.details?.fieldErrors.contentBase64).toEqual(["The file is larger than 1000 bytes"]);
    // One byte over, with padding counted exactly.
    await expectValidationError(
      client,
      "site_media_upload",
      { filename: "big.bin", contentBase64: base64(new Uint8Array(1001)) },
      "contentBase64",
    );
    // Bad base64 under the limit is named by its MCP argument too.
    const bad = await expectValidationError(
      client,
      "site_media_upload",
      { filename: "a.bin", contentBase64: "!!!!" },
      "contentBase64",
    );
    expect(bad.details?.fieldErrors.file).toBeUndefined();
    expect(await counts()).toEqual(before);
    // Exactly at the limit goes through.
    const atLimit = await call(client, "site_media_upload", {
      filename: "edge.bin",
      contentType: "application/octet-stream",
      contentBase64: base64(new Uint8Array(1000)),
    });
    expect(atLimit.isError, JSON.stringify(atLimit)).toBeUndefined();
    expect((atLimit.structuredContent as { size: number }).size).toBe(1000);
  });

  it("takes a file of megabytes, byte for byte (a regular expression's stack overflow answered an internal error)", async () => {
    site = await createMcpSite({ config: { uploadMaxBytes: 16 * 1024 * 1024 } });
    const client = await site.client();
    const file = new Uint8Array(12 * 1024 * 1024).map((_, i) => (i * 31 + (i >> 12)) & 255);
    const result = await call(client, "site_media_upload", {
      filename: "large.bin",
      contentType: "application/octet-stream",
      contentBase64: base64(file),
    });
    expect(result.isError, JSON.stringify(result).slice(0, 300)).toBeUndefined();
    const record = result.structuredContent as { id: string; size: number };
    expect(record.size).toBe(file.byteLength);
    const { storage_key: key } = await site.engine.context.db
      .selectFrom("media")
      .select("storage_key")
      .where("id", "=", record.id)
      .executeTakeFirstOrThrow();
    const stored = await site.engine.context.storage?.get(key);
    const bytes = new Uint8Array(await new Response(stored?.body).arrayBuffer());
    expect(Buffer.compare(bytes, file)).toBe(0);
    // A character outside the alphabet anywhere, or padding in the middle, is still not base64.
    const text = base64(new Uint8Array(3000));
    for (const broken of [
      `${text.slice(0, 2000)}*${text.slice(2001)}`,
      `AA==${text.slice(4)}`,
      text.slice(1),
    ]) {
      const refused = await call(client, "site_media_upload", { filename: "b.bin", contentBase64: broken });
      expect((refused as ErrorResult).structuredContent.code).toBe("VALIDATION_ERROR");
    }
  });
});
