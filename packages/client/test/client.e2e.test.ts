/**
 * The client against the real reference server: a node:http port, a SQLite file (or PostgreSQL
 * with QUIRE_TEST_DATABASE=postgres), a site path prefix, API tokens made through the client's own
 * internal-admin calls, and media on the file store.
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import {
  createTestSite,
  type ServerProcess,
  startServerProcess,
} from "../../../examples/server/test/support/processes.js";
import { mp4File, type S3Server, startS3Server, webpFile } from "../../http-adapter/test/uploads-fixtures.js";
import { createClient, isQuireError, type QuireClient, QuireError } from "../src/index.js";

const adminToken = "internal-admin-token-for-client-tests";
const MiB = 1024 * 1024;

describe("@quire/client against the reference server", () => {
  let site: Awaited<ReturnType<typeof createTestSite>>;
  let server: ServerProcess;
  let client: QuireClient;
  let token: string;
  const fetched: { method: string; url: string }[] = [];

  beforeAll(async () => {
    site = await createTestSite();
    server = await startServerProcess({
      ...site.env,
      INTERNAL_ADMIN_TOKEN: adminToken,
      SITE_PATH_PREFIX: "/blog",
    });
    const admin = createClient({ baseUrl: server.url, token: adminToken });
    ({ token } = await admin.tokens.create({ name: "client tests" }));
    client = createClient({
      baseUrl: server.url,
      token,
      headers: { "x-test": "client" },
      fetch: (input, init) => {
        fetched.push({ method: init?.method ?? "GET", url: String(input) });
        return fetch(input, init);
      },
    });
  }, 60_000);

  afterAll(async () => {
    server?.child.kill("SIGTERM");
    await server?.exited;
    await site?.cleanup();
  });

  it("calls operations through the injected fetch under the site prefix, with path params filled from the input", async () => {
    const created = await client.posts.create({ format: "note", bodyMarkdown: "Hello from the client" });
    expectTypeOf(created.id).toEqualTypeOf<string>();
    expect(created.id).toMatch(/^pst_/);
    const read = await client.posts.get({ id: created.id, content: "markdown" });
    expect(read).toMatchObject({ id: created.id, bodyMarkdown: "Hello from the client" });
    const updated = await client.posts.update({ id: created.id, bodyMarkdown: "Edited" });
    expect(updated.id).toBe(created.id);
    expect(fetched.at(-1)).toEqual({ method: "PUT", url: `${server.url}/api/posts/${created.id}` });
    expect(await client.posts.delete({ id: created.id })).toEqual({ success: true });
  });

  it("throws QuireError with status, code and details", async () => {
    const missing = await client.posts
      .get({ id: "pst_01h455vb4pex5vsknk084sn02q" })
      .catch((err: unknown) => err);
    expect(missing).toBeInstanceOf(QuireError);
    expect(missing).toMatchObject({ status: 404, code: "NOT_FOUND" });
    // A value the types refuse, sent anyway: the server's 400 names the field.
    const invalid = await client.posts
      .create({ format: "poem" as "note", bodyMarkdown: "x" })
      .catch((err: unknown) => err as QuireError);
    expect(isQuireError(invalid, "VALIDATION_ERROR")).toBe(true);
    expect(invalid).toMatchObject({ status: 400, code: "VALIDATION_ERROR" });
    expect(invalid instanceof QuireError && invalid.fieldErrors.format?.length).toBeGreaterThan(0);
    const anonymous = createClient({ baseUrl: server.url });
    await expect(anonymous.posts.list()).rejects.toMatchObject({ status: 401, code: "UNAUTHORIZED" });
    const wrongPrefix = createClient({ baseUrl: server.url.replace(/\/blog$/, ""), token });
    await expect(wrongPrefix.posts.list()).rejects.toMatchObject({ status: 404, code: "NOT_FOUND" });
  });

  it("sends query values as text the server converts back (numbers, enums, include flags)", async () => {
    const draft = await client.posts.create({ format: "note", bodyMarkdown: "A draft", status: "draft" });
    const drafts = await client.posts.list({ status: "draft", limit: 5 });
    expect(drafts.posts.map((post) => post.id)).toContain(draft.id);
    const published = await client.posts.list({ status: "published", limit: 100 });
    expect(published.posts.map((post) => post.id)).not.toContain(draft.id);
    await client.posts.delete({ id: draft.id });
  });

  it("sends queryAndBody input as JSON, calls operations that take no input, and honours a signal", async () => {
    const settings = await client.settings.get();
    expect(settings).toBeTypeOf("object");
    const preview = await client.smartCollections.preview({ lang: "en", selection: {} });
    expect(preview).toEqual({ count: expect.any(Number), baseline: expect.any(Number) });
    const post = await client.posts.create({ format: "note", bodyMarkdown: "Counted" });
    expect((await client.smartCollections.preview({ selection: {} })).count).toBe(preview.count + 1);
    await client.posts.delete({ id: post.id });
    const aborted = new AbortController();
    aborted.abort();
    await expect(client.posts.list({}, { signal: aborted.signal })).rejects.toMatchObject({
      name: "AbortError",
    });
  });

  it("answers documents (feeds, robots.txt) as raw answers, on the route the input fills", async () => {
    const post = await client.posts.create({ format: "note", bodyMarkdown: "Seen in the feed" });
    const rss = await client.feeds.main();
    expect(fetched.at(-1)?.url).toBe(`${server.url}/rss`);
    expect(rss).toMatchObject({
      raw: true,
      contentType: expect.stringMatching(/xml/),
      etag: expect.stringMatching(/^"/),
    });
    expect(rss.body).toContain("Seen in the feed");
    const json = await client.feeds.main({ format: "json" });
    expect(fetched.at(-1)?.url).toBe(`${server.url}/feeds/json`);
    expect(JSON.parse(json.body)).toMatchObject({ version: expect.stringContaining("jsonfeed") });
    expect((await client.feeds.robots()).contentType).toMatch(/^text\/plain/);
    await expect(client.feeds.main({}, { headers: { "if-none-match": rss.etag } })).rejects.toMatchObject({
      status: 304,
      code: "HTTP_304",
    });
    await client.posts.delete({ id: post.id });
  });

  it("answers a download (the Hugo export) as a streamed file, its body unread", async () => {
    const answer = await client.export.hugo();
    expect(answer).toMatchObject({ streamed: true, contentType: "application/zip" });
    expect(answer.filename).toMatch(/\.zip$/);
    const bytes = new Uint8Array(await new Response(answer.body).arrayBuffer());
    expect([...bytes.subarray(0, 4)]).toEqual([0x50, 0x4b, 0x03, 0x04]);
  });

  it("iterates every cursor list page by page to the end", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await client.posts.create({ format: "note", bodyMarkdown: `Thread ${i}` })).id);
    }
    const seen: string[] = [];
    const before = fetched.length;
    for await (const thread of client.threads.iterate({ limit: 2 })) {
      expectTypeOf(thread.id).toEqualTypeOf<string>();
      seen.push(thread.id);
    }
    expect(new Set(seen)).toEqual(new Set(ids));
    expect(seen).toHaveLength(5);
    // Three pages of at most 2, the last with nextCursor null.
    expect(fetched.slice(before).filter((call) => call.url.includes("/api/threads"))).toHaveLength(3);
    // A boolean filter goes as `fold=true`, which the server reads like `include=fold`.
    for await (const thread of client.threads.iterate({ limit: 2, fold: true })) {
      expect(thread.fold).toMatchObject({ hidden: 0 });
    }
    for await (const thread of client.threads.iterate({ limit: 2 })) expect(thread.fold).toBeUndefined();
    const posts: string[] = [];
    for await (const post of client.posts.iterate({ limit: 3 })) posts.push(post.id);
    expect(posts).toEqual(expect.arrayContaining(ids));
    const publicSlugs: string[] = [];
    for await (const thread of client.publicThreads.iterate({ limit: 2 })) publicSlugs.push(thread.id);
    expect(new Set(publicSlugs)).toEqual(new Set(ids));
    const redirects: string[] = [];
    for (let i = 0; i < 3; i++) {
      const created = await client.customUrls.create({
        path: `/old-${i}`,
        targetType: "redirect",
        toPath: "/",
      });
      redirects.push(created.id);
    }
    const walked: string[] = [];
    for await (const customUrl of client.customUrls.iterate({ limit: 2 })) walked.push(customUrl.id);
    expect(walked.sort()).toEqual(redirects.sort());
    const rootPosts: string[] = [];
    for await (const post of client.threads.iteratePosts({ id: ids[0] as string, limit: 1 }))
      rootPosts.push(post.id);
    expect(rootPosts).toEqual([ids[0]]);
    const pages = [];
    for await (const page of client.pages("threads.list", { limit: 4 })) pages.push(page.threads.length);
    expect(pages).toEqual([4, 1]);
    // Stopping early stops asking.
    const beforeBreak = fetched.length;
    for await (const _ of client.threads.iterate({ limit: 1 })) break;
    expect(fetched.length - beforeBreak).toBe(1);
    for (const id of ids) await client.posts.delete({ id });
  });

  it("uploads one-shot a Blob and a stream of unknown size, with details", async () => {
    const text = "plain text, one shot";
    const record = await client.media.upload(new Blob([text], { type: "text/plain" }), {
      filename: "note.txt",
      alt: "A note",
    });
    expect(record).toMatchObject({ originalName: "note.txt", mimeType: "text/plain", alt: "A note" });
    expect(await download(record)).toBe(sha(new TextEncoder().encode(text)));
    expect(fetched.at(-1)).toMatchObject({ method: "POST", url: `${server.url}/api/upload` });

    const bytes = pseudoRandom(300_000);
    const streamed = await client.media.upload(chunked(bytes, 64 * 1024), {
      filename: "data.bin",
      contentType: "application/octet-stream",
    });
    expect(streamed.size).toBe(bytes.byteLength);
    expect(await download(streamed)).toBe(sha(bytes));
  });

  it("uploads through a relay session when the size is known and above the one-shot limit", async () => {
    const bytes = pseudoRandom(1_000_000);
    const before = fetched.length;
    const record = await client.media.upload(chunked(bytes, 100_000), {
      filename: "relay.bin",
      size: bytes.byteLength,
      oneShotMaxBytes: 1000,
      checksumSha256: createHash("sha256").update(bytes).digest("base64"),
    });
    expect(record.size).toBe(bytes.byteLength);
    expect(await download(record)).toBe(sha(bytes));
    expect(fetched.slice(before).map((call) => `${call.method} ${new URL(call.url).pathname}`)).toEqual([
      "POST /blog/api/uploads/init",
      expect.stringMatching(/^PUT \/blog\/api\/uploads\/upl_\w+\/body$/),
      expect.stringMatching(/^POST \/blog\/api\/uploads\/upl_\w+\/complete$/),
    ]);
  });

  it("aborts the session and throws when the file is not what was declared", async () => {
    const before = fetched.length;
    const failure = await client.media
      .upload(chunked(pseudoRandom(5000), 1000), { filename: "short.bin", size: 6000, via: "session" })
      .catch((err: unknown) => err);
    expect(failure).toMatchObject({ status: 400, code: "VALIDATION_ERROR" });
    const calls = fetched.slice(before).map((call) => `${call.method} ${new URL(call.url).pathname}`);
    expect(calls.at(-1)).toMatch(/^POST \/blog\/api\/uploads\/upl_\w+\/abort$/);
    const id = /upl_\w+/.exec(calls.at(-1) as string)?.[0] as string;
    // The session is gone: completing it now is refused.
    await expect(client.uploads.complete({ id })).rejects.toMatchObject({ code: "CONFLICT" });
  });

  it("sends a file above the multipart threshold in parts streamed from one source", async () => {
    const size = 64 * MiB + 1;
    const hash = createHash("sha256");
    async function* source(): AsyncGenerator<Uint8Array> {
      const block = pseudoRandom(MiB);
      for (let sent = 0; sent < size; sent += block.byteLength) {
        const chunk = block.subarray(0, Math.min(block.byteLength, size - sent));
        hash.update(chunk);
        yield chunk;
      }
    }
    const before = fetched.length;
    const record = await client.media.upload(source(), { filename: "large.bin", size });
    const calls = fetched
      .slice(before)
      .map((call) => `${call.method} ${new URL(call.url).pathname}${new URL(call.url).search}`);
    expect(calls[0]).toBe("POST /blog/api/uploads/init");
    expect(calls.filter((call) => call.includes("/part?partNumber="))).toHaveLength(2);
    expect(record.size).toBe(size);
    expect(await download(record)).toBe(hash.digest("hex"));
    await client.media.delete({ id: record.id });
  }, 120_000);

  it("uploads a video with its poster and details, one-shot and through a session", async () => {
    const video = mp4File(40_000);
    const poster = webpFile(160, 90);
    for (const via of ["oneShot", "session"] as const) {
      const before = fetched.length;
      const record = await client.media.upload(new File([video], `clip-${via}.mp4`, { type: "video/mp4" }), {
        via,
        poster: new Blob([poster]),
        width: 1920,
        height: 1080,
        durationSeconds: 42,
      });
      expect(record).toMatchObject({
        originalName: `clip-${via}.mp4`,
        mediaKind: "video",
        width: 1920,
        height: 1080,
        durationSeconds: 42,
      });
      if (record.type !== "media" || record.posterUrl === null) throw new Error("The video has no poster");
      const served = await fetch(new URL(record.posterUrl, server.url));
      expect(served.headers.get("content-type")).toBe("image/webp");
      expect(sha(new Uint8Array(await served.arrayBuffer()))).toBe(sha(poster));
      expect(await download(record)).toBe(sha(video));
      const paths = fetched.slice(before).map((call) => new URL(call.url).pathname);
      if (via === "session") expect(paths.some((path) => path.endsWith("/poster"))).toBe(true);
      else expect(paths).toEqual(["/blog/api/upload"]);
    }
  });

  it("fills path params, query and raw bodies for the session operations called one by one", async () => {
    const bytes = pseudoRandom(2048);
    const session = await client.uploads.init({
      filename: "raw.bin",
      contentType: "application/octet-stream",
      size: 2048,
    });
    expect(session.transport.kind).toBe("relay");
    await client.uploads.putBody({ id: session.id, body: new Blob([bytes as Uint8Array<ArrayBuffer>]) });
    const record = await client.uploads.complete({ id: session.id, alt: "raw" });
    expect(record).toMatchObject({ size: 2048, alt: "raw" });
    expect(await download(record)).toBe(sha(bytes));
    const listed: string[] = [];
    for await (const media of client.media.iterate({ limit: 1 })) listed.push(media.id);
    expect(listed).toContain(record.id);
  });

  /** The SHA-256 of a media record's file as the server serves it. */
  const download = async (record: { url?: string }) => {
    if (record.url === undefined) throw new Error("The media record has no url");
    return sha(new Uint8Array(await (await fetch(new URL(record.url, server.url))).arrayBuffer()));
  };
});

function sha(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

function pseudoRandom(size: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(size);
  let state = 12345;
  for (let i = 0; i < size; i++) {
    state = (state * 1103515245 + 12345) >>> 0;
    bytes[i] = state >>> 24;
  }
  return bytes;
}

async function* chunked(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let offset = 0; offset < bytes.byteLength; offset += size) yield bytes.subarray(offset, offset + size);
}

describe("@quire/client against the reference server on S3 storage (s3rver)", () => {
  let s3: S3Server;
  let site: Awaited<ReturnType<typeof createTestSite>>;
  let server: ServerProcess;
  let client: QuireClient;
  const fetched: { method: string; url: string; authorization: string | null }[] = [];

  beforeAll(async () => {
    s3 = await startS3Server();
    site = await createTestSite();
    server = await startServerProcess({
      ...site.env,
      INTERNAL_ADMIN_TOKEN: adminToken,
      STORAGE_DRIVER: "s3",
      S3_BUCKET: s3.bucket,
      S3_ENDPOINT: s3.endpoint,
      S3_FORCE_PATH_STYLE: "true",
      S3_ACCESS_KEY_ID: "S3RVER",
      S3_SECRET_ACCESS_KEY: "S3RVER",
      S3_PUBLIC_URL: `${s3.endpoint}/${s3.bucket}`,
    });
    const admin = createClient({ baseUrl: server.url, token: adminToken });
    const { token } = await admin.tokens.create({ name: "client tests on S3" });
    client = createClient({
      baseUrl: server.url,
      token,
      fetch: (input, init) => {
        fetched.push({
          method: init?.method ?? "GET",
          url: String(input),
          authorization: new Headers(init?.headers).get("authorization"),
        });
        return fetch(input, init);
      },
    });
  }, 60_000);

  afterAll(async () => {
    server?.child.kill("SIGTERM");
    await server?.exited;
    await site?.cleanup();
    await s3?.close();
  });

  it("sends a session's file straight to storage with the presigned PUT, without the API token", async () => {
    const bytes = pseudoRandom(200_000);
    const record = await client.media.upload(chunked(bytes, 50_000), {
      filename: "direct.bin",
      size: bytes.byteLength,
      via: "session",
    });
    const [init, put, complete] = fetched;
    expect(fetched).toHaveLength(3);
    expect(new URL(init?.url as string).pathname).toBe("/api/uploads/init");
    expect(put).toMatchObject({ method: "PUT", authorization: null });
    expect(String(put?.url).startsWith(`${s3.endpoint}/${s3.bucket}/`)).toBe(true);
    expect(new URL(complete?.url as string).pathname).toMatch(/^\/api\/uploads\/upl_\w+\/complete$/);
    expect(record.size).toBe(bytes.byteLength);
    if (record.url === undefined) throw new Error("The media record has no url");
    const served = new Uint8Array(await (await fetch(record.url)).arrayBuffer());
    expect(sha(served)).toBe(sha(bytes));
  });
});
