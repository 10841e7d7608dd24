import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createFsStorage } from "@quire/storage-fs";
import { describe, expect, it, onTestFinished } from "vitest";
import { checkInvariants, statusCounts } from "./concurrency-invariants.js";
import { createTestSite, type TestResponse, type TestSite } from "./helpers.js";
import { formBody, pngFile } from "./uploads-fixtures.js";

/**
 * Many writers at once through the Fetch handler, then the invariants of
 * concurrency-invariants.ts. On PostgreSQL the engine gets a pool big enough for the writers to
 * overlap (READ COMMITTED); on SQLite one engine serialises them, and
 * concurrency-engines.http.test.ts runs two engines on one file.
 * @see docs/reliability.md
 */
const poolSize = 12;
const t0 = 1_700_000_000;

async function createSite(): Promise<TestSite> {
  const root = await mkdtemp(path.join(tmpdir(), "quire-concurrency-"));
  onTestFinished(() => rm(root, { recursive: true, force: true }));
  return createTestSite({
    engineConfig: { now: t0, poolSize, storage: createFsStorage({ root, publicBaseUrl: "/media" }) },
  });
}

/** Starts every request at once and waits for all answers, in the order given. */
function all(requests: (() => Promise<TestResponse>)[]): Promise<TestResponse[]> {
  return Promise.all(requests.map((request) => request()));
}

async function create(site: TestSite, body: object): Promise<{ id: string; slug: string }> {
  const response = await site.call("POST", "/api/posts", { format: "note", ...body });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body;
}

async function uploadImage(site: TestSite, name: string): Promise<string> {
  const { body, contentType } = formBody([
    { name: "file", filename: name, type: "image/png", data: pngFile(4, 4) },
  ]);
  const response = await site.send("POST", "/api/upload", body, { "content-type": contentType });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.id;
}

describe("concurrent writers", () => {
  it("keep every Thread figure exact through replies, quiet replies, drafts, deletes and status changes", async () => {
    const site = await createSite();
    const roots = [await create(site, { title: "First" }), await create(site, { title: "Second" })];
    const earlier = new Map<string, string[]>();
    for (const root of roots) {
      const replies: string[] = [];
      for (let i = 0; i < 12; i++) {
        replies.push(
          (await create(site, { replyToId: root.id, bodyMarkdown: `early ${i}`, publishedAt: t0 + i })).id,
        );
      }
      earlier.set(root.id, replies);
    }

    const doomed = new Set<string>();
    const writes: { kind: string; id?: string; send: () => Promise<TestResponse> }[] = [];
    for (const root of roots) {
      const replies = earlier.get(root.id) ?? [];
      for (let i = 0; i < 30; i++) {
        const draft = i % 5 === 2;
        // Some replies answer a reply that is being deleted meanwhile: 201 (moved up) or 404.
        const parent = i % 8 === 3 ? (replies[i % 4] as string) : root.id;
        writes.push({
          kind: parent === root.id ? "reply" : "reply-to-doomed",
          send: () =>
            site.call("POST", "/api/posts", {
              format: "note",
              replyToId: parent,
              bodyMarkdown: `reply ${i}`,
              quietReply: i % 4 === 1,
              ...(draft ? { status: "draft" } : { publishedAt: t0 + 1000 + ((i * 37) % 100) }),
            }),
        });
      }
      for (const id of replies.slice(0, 4)) {
        doomed.add(id);
        writes.push({ kind: "delete", id, send: () => site.call("DELETE", `/api/posts/${id}`) });
      }
      for (const id of replies.slice(4, 8)) {
        writes.push({
          kind: "unpublish",
          id,
          send: () => site.call("PUT", `/api/posts/${id}`, { status: "draft" }),
        });
      }
      for (const [n, id] of replies.slice(8, 12).entries()) {
        writes.push({
          kind: "republish",
          id,
          send: () => site.call("PUT", `/api/posts/${id}`, { publishedAt: t0 + 2000 + n }),
        });
      }
    }
    const answers = await all(writes.map((write) => write.send));

    const unexpected = answers.filter(
      (answer, i) =>
        !(answer.status < 300 || (writes[i]?.kind === "reply-to-doomed" && answer.status === 404)),
    );
    expect
      .soft(statusCounts(unexpected), JSON.stringify(unexpected.map((answer) => answer.body)))
      .toEqual({});
    for (const [i, answer] of answers.entries()) {
      const write = writes[i];
      if (!write || answer.status >= 300) continue;
      const id = write.id ?? answer.body.id;
      const read = await site.call("GET", `/api/posts/${id}`);
      expect.soft(read.status, `${write.kind} ${id}`).toBe(doomed.has(id) ? 404 : 200);
      if (write.kind === "unpublish") expect.soft(read.body.status).toBe("draft");
    }
    await checkInvariants(site.engine.context.db);
  });

  it("give every create of one title without a slug its own generated address (never 409)", async () => {
    const site = await createSite();
    await create(site, { title: "Same title" });
    const answers = await all(
      Array.from(
        { length: 40 },
        (_, i) => () =>
          site.call("POST", "/api/posts", { format: "note", title: "Same title", bodyMarkdown: `${i}` }),
      ),
    );
    expect
      .soft(statusCounts(answers), JSON.stringify(answers.find((answer) => answer.status !== 201)?.body))
      .toEqual({
        201: 40,
      });
    const slugs = answers.map((answer) => answer.body.slug as string);
    expect.soft(new Set([...slugs, "same-title"]).size).toBe(41);
    for (const answer of answers.filter((answer) => answer.status === 201)) {
      const read = await site.call("GET", `/api/posts/${answer.body.id}`);
      expect.soft(read.body.slug).toBe(answer.body.slug);
    }
    await checkInvariants(site.engine.context.db);
  });

  it("let exactly one writer take an explicit slug, path or slug move; the rest answer 409", async () => {
    const site = await createSite();
    const movers: { id: string }[] = [];
    for (let i = 0; i < 12; i++) movers.push(await create(site, { title: `Mover ${i}` }));
    const bySlug = Array.from(
      { length: 16 },
      () => () => site.call("POST", "/api/posts", { format: "note", slug: "one-address", bodyMarkdown: "x" }),
    );
    const byPath = Array.from(
      { length: 16 },
      () => () =>
        site.call("POST", "/api/posts", { format: "note", path: "2024/01/one-path", bodyMarkdown: "x" }),
    );
    const moves = movers.map(
      (post) => () => site.call("PUT", `/api/posts/${post.id}`, { slug: "moved-here" }),
    );
    const answers = await all([...bySlug, ...byPath, ...moves]);

    expect.soft(statusCounts(answers.slice(0, 16))).toEqual({ 201: 1, 409: 15 });
    expect.soft(statusCounts(answers.slice(16, 32))).toEqual({ 201: 1, 409: 15 });
    expect.soft(statusCounts(answers.slice(32))).toEqual({ 200: 1, 409: 11 });
    for (const answer of answers.filter((answer) => answer.status === 409))
      expect(answer.body.code).toBe("CONFLICT");
    const moved = answers.slice(32).find((answer) => answer.status === 200);
    expect((await site.call("GET", "/api/posts/slug?mode=check&slug=moved-here")).body.available).toBe(false);
    expect((await site.call("GET", `/api/posts/${moved?.body.id}`)).body.slug).toBe("moved-here");
    await checkInvariants(site.engine.context.db);
  });

  it("give a media item attached by several posts at once exactly one owner", async () => {
    const site = await createSite();
    const mediaIds: string[] = [];
    for (let i = 0; i < 4; i++) mediaIds.push(await uploadImage(site, `image-${i}.png`));
    const holders: { id: string }[] = [];
    for (let i = 0; i < 12; i++) holders.push(await create(site, { title: `Holder ${i}` }));

    const attempts = mediaIds.flatMap((mediaId, m) => {
      const attachments = [{ type: "media", mediaId }];
      return [
        ...Array.from(
          { length: 5 },
          () => () => site.call("POST", "/api/posts", { format: "note", bodyMarkdown: "x", attachments }),
        ),
        ...holders
          .slice(m * 3, m * 3 + 3)
          .map((post) => () => site.call("PUT", `/api/posts/${post.id}`, { attachments })),
      ];
    });
    const answers = await all(attempts);

    for (const [m, mediaId] of mediaIds.entries()) {
      const mine = answers.slice(m * 8, m * 8 + 8);
      expect
        .soft(
          statusCounts(
            mine.map((answer) => ({ ...answer, status: answer.status < 300 ? 200 : answer.status })),
          ),
          mediaId,
        )
        .toEqual({
          200: 1,
          409: 7,
        });
      // Every acknowledged attachment is still there: a second "winner" would have taken it away.
      for (const answer of mine.filter((answer) => answer.status < 300)) {
        const read = await site.call("GET", `/api/posts/${answer.body.id}`);
        expect
          .soft(
            read.body.attachments.map((attachment: { id: string }) => attachment.id),
            answer.body.id,
          )
          .toEqual([mediaId]);
      }
    }
    await checkInvariants(site.engine.context.db);
  });

  it("let one completion or abort of an upload session win; the rest answer 409", async () => {
    const site = await createSite();
    const file = pngFile(8, 8, 4096);
    const sessions: string[] = [];
    for (let i = 0; i < 4; i++) {
      const init = await site.call("POST", "/api/uploads/init", {
        filename: `race-${i}.png`,
        contentType: "image/png",
        size: file.byteLength,
      });
      expect(init.status, JSON.stringify(init.body)).toBe(200);
      expect((await site.send("PUT", init.body.transport.url, file)).status).toBe(204);
      sessions.push(init.body.id);
    }
    const answers = await all(
      sessions.flatMap((id) => [
        ...Array.from({ length: 4 }, () => () => site.call("POST", `/api/uploads/${id}/complete`, {})),
        () => site.call("POST", `/api/uploads/${id}/abort`),
      ]),
    );
    for (const [s, id] of sessions.entries()) {
      const mine = answers.slice(s * 5, s * 5 + 5);
      expect
        .soft(
          mine.filter((answer) => answer.status < 300),
          id,
        )
        .toHaveLength(1);
      expect
        .soft(
          mine.filter((answer) => answer.status === 409),
          id,
        )
        .toHaveLength(4);
      const completed = mine.slice(0, 4).find((answer) => answer.status === 201);
      if (completed) expect((await site.call("GET", `/api/media/${completed.body.id}`)).status).toBe(200);
    }
    await checkInvariants(site.engine.context.db);
  });

  it("keep edits, visibility and status changes whole while replies arrive", async () => {
    const site = await createSite();
    const root = await create(site, { title: "Busy" });
    const target = await create(site, { replyToId: root.id, bodyMarkdown: "edit me", publishedAt: t0 + 1 });
    const titles = Array.from({ length: 16 }, (_, i) => `Title ${i}`);
    const visibilities = ["private", "latest_hidden", "public", "private"];
    const statuses = ["draft", "published", "draft", "published"];
    const answers = await all([
      ...titles.map((title) => () => site.call("PUT", `/api/posts/${root.id}`, { title })),
      ...visibilities.map((visibility) => () => site.call("PUT", `/api/posts/${root.id}`, { visibility })),
      ...statuses.map((status) => () => site.call("PUT", `/api/posts/${target.id}`, { status })),
      ...Array.from(
        { length: 16 },
        (_, i) => () =>
          site.call("POST", "/api/posts", {
            format: "note",
            replyToId: root.id,
            bodyMarkdown: `r${i}`,
            publishedAt: t0 + 10 + i,
          }),
      ),
    ]);
    expect
      .soft(
        statusCounts(
          answers.map((answer) => ({ ...answer, status: answer.status < 300 ? 200 : answer.status })),
        ),
      )
      .toEqual({
        200: 40,
      });
    const read = (await site.call("GET", `/api/posts/${root.id}`)).body;
    expect.soft(titles).toContain(read.title);
    expect.soft(read.displayTitle).toBe(read.title);
    expect.soft(visibilities).toContain(read.visibility);
    await checkInvariants(site.engine.context.db);
  });
});
