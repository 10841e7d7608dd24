import { entryId } from "@quire/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { assertErrorShape, createTestSite } from "./helpers.js";
import {
  buildSite,
  expectedRoots,
  expectedThread,
  isVisible,
  type ModelPost,
  type PublicListQuery,
  publicListQuery,
  publishedReplies,
  rootOf,
  type SiteModel,
  siteSpec,
  threadOf,
} from "./leaks/site-model.js";
import { createFsMediaSite, type MediaSite } from "./uploads-fixtures.js";

/**
 * Leak properties (docs/fuzzing.md § Leak properties): on random sites of drafts, private,
 * latest-hidden, quiet and featured posts in random Threads, with text and image attachments and
 * later changes, no public surface reveals a post, attachment, file, count or figure a reader may
 * not see. What a reader may see is worked out from the spec by the model in leaks/site-model.ts.
 * Runs on both databases; QUIRE_LEAK_RUNS sets the number of sites.
 */
const runs = Number(process.env.QUIRE_LEAK_RUNS ?? 25);

describe("leak properties of the public surfaces", () => {
  it(`reveal nothing a reader may not see, and count only what they may (${runs} random sites)`, async () => {
    const site = await createFsMediaSite();
    await fc.assert(
      fc.asyncProperty(
        siteSpec,
        fc.array(publicListQuery, { minLength: 4, maxLength: 8 }),
        async (spec, queries) => {
          await emptySite(site);
          const model = await buildSite(site.engine, spec);
          const reader = readerOf(site, model);
          await reader.checkList({ fold: true, limit: 3 });
          for (const query of queries) await reader.checkList(query);
          for (const post of model.posts) await reader.checkPost(post);
          await reader.checkFiles();
          await reader.checkDocuments();
        },
      ),
      { numRuns: runs, seed: Number(process.env.QUIRE_LEAK_SEED ?? 16_005) },
    );
  }, 300_000);
});

/** Each leak the properties found, pinned by a scenario that failed before its fix. */
describe("found by the leak properties", () => {
  it("a reply to an unpublished reply names its nearest published ancestor to readers, never the draft", async () => {
    const s = await createTestSite();
    const note = (extra: Record<string, unknown>) =>
      s.engine.posts.create({ format: "note", bodyMarkdown: "x", ...extra });
    const root = await note({ title: "Root" });
    const draft = await note({ replyToId: root.id, status: "draft" });
    const draftOfDraft = await note({ replyToId: draft.id, status: "draft" });
    const child = await note({ replyToId: draft.id });
    const grandchild = await note({ replyToId: child.id });
    const deep = await note({ replyToId: draftOfDraft.id });
    const expected = { [child.id]: root.id, [grandchild.id]: child.id, [deep.id]: root.id };
    const visitor = { authorization: "" };
    const parents = (posts: { id: string; replyToId: string | null }[]) =>
      Object.fromEntries(
        posts.filter((post) => post.id !== root.id).map((post) => [post.id, post.replyToId]),
      );

    const single = await Promise.all(
      [child, grandchild, deep].map((post) =>
        s.call("GET", `/api/public/posts/${post.slug}`, undefined, visitor),
      ),
    );
    expect(parents(single.map((response) => response.body))).toEqual(expected);
    const posts = await s.call("GET", `/api/public/threads/${root.slug}/posts`, undefined, visitor);
    expect(parents(posts.body.posts)).toEqual(expected);
    const thread = await s.call("GET", `/api/public/threads/${root.slug}?include=fold`, undefined, visitor);
    expect(parents([...thread.body.fold.leading, ...thread.body.fold.trailing])).toEqual(expected);
    const list = await s.call("GET", "/api/public/threads?include=fold", undefined, visitor);
    expect(parents([...list.body.threads[0].fold.leading, ...list.body.threads[0].fold.trailing])).toEqual(
      expected,
    );
    expect(JSON.stringify([...single, posts, thread, list].map((response) => response.body))).not.toMatch(
      new RegExp(`${draft.id}|${draftOfDraft.id}`),
    );

    // The author still sees the Thread as written; once the draft is published, readers do too.
    expect((await s.call("GET", `/api/posts/${child.id}`)).body.replyToId).toBe(draft.id);
    await s.engine.posts.update({ id: draft.id, status: "published" });
    const after = await s.call("GET", `/api/public/posts/${child.slug}`, undefined, visitor);
    expect(after.body.replyToId).toBe(draft.id);
  });
});

async function emptySite(site: MediaSite): Promise<void> {
  const { db } = site.engine.context;
  for (const table of ["media", "posts", "custom_urls", "site_addresses"] as const)
    await db.deleteFrom(table).execute();
}

// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field
type Json = any;

/** A visitor reading the site's public surfaces, checking each answer against the model. */
function readerOf(site: MediaSite, model: SiteModel) {
  const visiblePosts = new Set(model.posts.filter((post) => isVisible(model, post)).map((post) => post.id));
  const visibleMedia = new Set(
    model.posts.filter((post) => isVisible(model, post)).flatMap((post) => post.attachments),
  );
  const fileUrls = new Set<string>();

  /** A GET as a visitor (no credentials); every ID anywhere in the answer, cursors included, must be visible. */
  async function read(
    path: string,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; body: Json }> {
    const response = await site.handler(new Request(`http://localhost${path}`, { headers }));
    const text = await response.text();
    const body = text === "" ? null : JSON.parse(text);
    assertErrorShape(response.status, body);
    for (const id of idsIn(body)) {
      if (id.startsWith("pst_")) expect(visiblePosts.has(id), `${path} reveals post ${id}`).toBe(true);
      if (id.startsWith("med_")) expect(visibleMedia.has(id), `${path} reveals attachment ${id}`).toBe(true);
    }
    for (const url of attachmentUrls(body)) fileUrls.add(url);
    return { status: response.status, body };
  }

  /** A Thread object: its figures, its root's copies of them, and its fold, as the model says. */
  function checkThread(thread: Json, fold: boolean, label: string): void {
    const modelThread = model.threads.find((candidate) => candidate.id === thread.id);
    expect(modelThread, `${label}: unknown Thread ${thread.id}`).toBeDefined();
    if (!modelThread) return;
    const expected = expectedThread(model, modelThread);
    const figures = {
      postCount: expected.postCount,
      lastActivityAt: expected.lastActivityAt,
      threadUpdatedAt: expected.threadUpdatedAt,
    };
    expect(
      {
        postCount: thread.postCount,
        lastActivityAt: thread.lastActivityAt,
        threadUpdatedAt: thread.threadUpdatedAt,
      },
      label,
    ).toEqual(figures);
    checkPostFigures(thread.root, label);
    if (!fold) {
      expect(thread.fold, label).toBeUndefined();
      return;
    }
    const ids = (posts: Json[]) => posts.map((post: Json) => post.id);
    expect(
      {
        leading: ids(thread.fold.leading),
        trailing: ids(thread.fold.trailing),
        hidden: thread.fold.hidden,
        gap: thread.fold.gap?.id ?? null,
      },
      `${label}: fold`,
    ).toEqual(expected.fold);
    for (const post of [...thread.fold.leading, ...thread.fold.trailing])
      checkPostFigures(post, `${label}: fold`);
  }

  /** A post in the reading view: published, its Thread's figures, its own attachments, no contentUrl. */
  function checkPostFigures(view: Json, label: string): void {
    const post = model.posts.find((candidate) => candidate.id === view.id) as ModelPost;
    const expected = expectedThread(model, threadOf(model, post));
    expect(
      {
        status: view.status,
        threadPostCount: view.threadPostCount,
        lastActivityAt: view.lastActivityAt,
        threadUpdatedAt: view.threadUpdatedAt,
      },
      `${label}: post ${view.id}`,
    ).toEqual({
      status: "published",
      threadPostCount: expected.postCount,
      lastActivityAt: expected.lastActivityAt,
      threadUpdatedAt: expected.threadUpdatedAt,
    });
    expect(
      view.attachments.map((attachment: Json) => attachment.id),
      `${label}: attachments of ${view.id}`,
    ).toEqual(post.attachments);
    for (const attachment of view.attachments) expect(attachment, label).not.toHaveProperty("contentUrl");
  }

  return {
    /** Walks a public Thread list to its end: exactly the roots the model lists, each once, each right. */
    async checkList(query: PublicListQuery): Promise<void> {
      const params = new URLSearchParams();
      for (const name of ["sort", "visibility", "format", "title", "replies", "media"] as const) {
        const value = query[name];
        if (value !== undefined) params.set(name, value);
      }
      if (query.fold) params.set("include", "fold");
      params.set("limit", String(query.limit));
      const label = `GET /api/public/threads?${params}`;
      const seen: string[] = [];
      let cursor: string | null = null;
      for (let page = 0; page < 60; page++) {
        const { status, body } = await read(
          `/api/public/threads?${params}${cursor ? `&cursor=${cursor}` : ""}`,
        );
        expect(status, label).toBe(200);
        for (const thread of body.threads) {
          seen.push(thread.id);
          checkThread(thread, query.fold, label);
        }
        cursor = body.nextCursor;
        if (cursor === null) break;
      }
      expect(cursor, `${label}: walk ended`).toBeNull();
      expect(new Set(seen).size, `${label}: each Thread once`).toBe(seen.length);
      expect(new Set(seen), label).toEqual(expectedRoots(model, query));
    },

    /** Every public read that names a post: 404 unless the reader may see it, and then exactly what they may. */
    async checkPost(post: ModelPost): Promise<void> {
      const visible = isVisible(model, post);
      const single = await read(`/api/public/posts/${post.slug}`);
      const thread = await read(`/api/public/threads/${post.slug}?include=fold`);
      const label = `post ${post.id} (${visible ? "visible" : "hidden"})`;
      if (!visible) {
        // The same answer as for a slug no post ever had: a hidden post does not even exist.
        const absent = `absent-${post.slug}`;
        const unknown = (path: string) => read(path.replace(post.slug, absent));
        const hidden = (body: Json) => JSON.stringify(body).replaceAll(post.slug, absent);
        expect(hidden(single.body), label).toBe(
          JSON.stringify((await unknown(`/api/public/posts/${post.slug}`)).body),
        );
        expect(single.status, label).toBe(404);
        expect(hidden(thread.body), label).toBe(
          JSON.stringify((await unknown(`/api/public/threads/${post.slug}`)).body),
        );
        const posts = await read(`/api/public/threads/${post.slug}/posts`);
        expect(hidden(posts.body), label).toBe(
          JSON.stringify((await unknown(`/api/public/threads/${post.slug}/posts`)).body),
        );
      } else {
        expect(single.status, label).toBe(200);
        expect(single.body.id, label).toBe(post.id);
        checkPostFigures(single.body, label);
        expect(thread.status, label).toBe(200);
        expect(thread.body.id, label).toBe(post.threadId);
        checkThread(thread.body, true, label);
        await this.checkThreadPosts(post);
      }
      // The owner's surfaces say nothing to a visitor, not even whether a slug is taken.
      expect((await read(`/api/posts/slug?mode=check&slug=${post.slug}`)).status, label).toBe(401);
      for (const id of post.attachments)
        expect((await read(`/api/attachments/${id}/content`)).status, label).toBe(401);
    },

    /** A visible Thread's posts, walked two at a time: the root, then its published replies in order. */
    async checkThreadPosts(post: ModelPost): Promise<void> {
      const thread = threadOf(model, post);
      const expected = [rootOf(model, thread), ...publishedReplies(model, thread)].map((entry) => entry.id);
      const seen: string[] = [];
      let cursor: string | null = null;
      for (let page = 0; page < 40; page++) {
        const { status, body } = await read(
          `/api/public/threads/${post.slug}/posts?limit=2${cursor ? `&cursor=${cursor}` : ""}`,
        );
        expect(status).toBe(200);
        for (const view of body.posts) {
          seen.push(view.id);
          checkPostFigures(view, `posts of ${thread.id}`);
        }
        cursor = body.nextCursor;
        if (cursor === null) break;
      }
      expect(seen, `posts of ${thread.id}`).toEqual(expected);
    },

    /**
     * The feeds list exactly the Threads the model says (latest: public; featured: featured and not
     * private), newest publication first, RSS_FEED_LIMIT at most; the sitemap names every visible
     * post and no other (docs/feeds.md).
     */
    async checkDocuments(): Promise<void> {
      const limit = (await site.engine.siteSettings()).rssFeedLimit;
      const listed = (shown: (thread: (typeof model.threads)[number]) => boolean) =>
        model.threads
          .map((thread) => ({ thread, root: rootOf(model, thread) }))
          .filter(({ thread, root }) => isVisible(model, root) && shown(thread))
          .sort(
            (a, b) =>
              (b.root.publishedAt as number) - (a.root.publishedAt as number) ||
              (a.root.id < b.root.id ? 1 : -1),
          )
          .slice(0, limit)
          .map(({ root }) => entryId(root.id));
      const feeds = {
        "/feeds/latest/json": listed((thread) => thread.visibility === "public"),
        "/feeds/featured/json": listed((thread) => thread.featured),
      };
      for (const [path, expected] of Object.entries(feeds)) {
        const response = await site.handler(new Request(`http://localhost${path}`));
        expect(response.status, path).toBe(200);
        const items = (await response.json()).items as { id: string }[];
        expect(
          items.map((item) => item.id),
          path,
        ).toEqual(expected);
      }
      const sitemap = await (await site.handler(new Request("http://localhost/sitemap.xml"))).text();
      const locs = new Set([...sitemap.matchAll(/<loc>([^<]*)<\/loc>/g)].map((match) => match[1]));
      for (const post of model.posts) {
        if (post.deleted) continue;
        expect(locs.has(`http://localhost/${post.slug}`), `sitemap.xml and post ${post.id}`).toBe(
          isVisible(model, post),
        );
      }
    },

    /** Every file address a public answer gave is served. */
    async checkFiles(): Promise<void> {
      for (const url of fileUrls) expect((await site.download(url)).status, url).toBe(200);
    },
  };
}

/** Every post and media ID in an answer: in any string, and inside cursors (opaque, but readable). */
function idsIn(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string") {
    out.push(...(value.match(/\b(?:pst|med)_[0-9a-z]{26}\b/g) ?? []));
    if (/^[A-Za-z0-9_-]{16,}$/.test(value)) {
      const decoded = Buffer.from(value, "base64url").toString("utf8");
      out.push(...(decoded.match(/\b(?:pst|med)_[0-9a-z]{26}\b/g) ?? []));
    }
  } else if (Array.isArray(value)) {
    for (const item of value) idsIn(item, out);
  } else if (typeof value === "object" && value !== null) {
    for (const item of Object.values(value)) idsIn(item, out);
  }
  return out;
}

/** The file addresses of the attachments in an answer. */
function attachmentUrls(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) attachmentUrls(item, out);
  else if (typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>;
    if (Array.isArray(record.attachments)) {
      for (const attachment of record.attachments as Record<string, unknown>[]) {
        for (const key of ["url", "previewUrl", "posterUrl"]) {
          const url = attachment[key];
          if (typeof url === "string") out.push(url);
        }
      }
    }
    for (const item of Object.values(record)) attachmentUrls(item, out);
  }
  return out;
}
