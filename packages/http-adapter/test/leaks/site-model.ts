import type { Engine } from "@quire/core";
import fc from "fast-check";
import { pngFile } from "../uploads-fixtures.js";

/**
 * Random sites for the leak properties, and what a reader may see of them, worked out from the
 * spec's rules alone (§ Post status and visibility, § Threads, § Fold) — never from the engine's
 * queries. A site is built in-process; the properties read it over HTTP as a visitor.
 */

const T = 1_600_000_000;

const replySpec = fc.record({
  status: fc.constantFrom("published", "published", "draft"),
  quiet: fc.boolean(),
  /** 0: the root; n: the n-th reply before this one (modulo), so replies of replies occur. */
  parent: fc.nat({ max: 6 }),
  publishedOffset: fc.integer({ min: 0, max: 3_000 }),
  text: fc.boolean(),
  image: fc.constantFrom(false, false, true),
});

const threadSpec = fc.record({
  format: fc.constantFrom("note", "note", "link", "quote"),
  status: fc.constantFrom("published", "published", "published", "draft"),
  visibility: fc.constantFrom("public", "public", "latest_hidden", "private"),
  featured: fc.boolean(),
  pinned: fc.constantFrom(false, false, true),
  titled: fc.boolean(),
  rating: fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }),
  publishedOffset: fc.integer({ min: 0, max: 3_000 }),
  text: fc.boolean(),
  image: fc.constantFrom(false, true),
  replies: fc.array(replySpec, { maxLength: 8 }),
});

/** A change made after the site is built: one post's status, a Thread's visibility or featured flag, a deleted reply. */
const changeSpec = fc.oneof(
  fc.record({
    kind: fc.constant("status" as const),
    post: fc.nat(),
    status: fc.constantFrom("published", "draft"),
    publishedOffset: fc.integer({ min: 0, max: 3_000 }),
  }),
  fc.record({
    kind: fc.constant("visibility" as const),
    thread: fc.nat(),
    visibility: fc.constantFrom("public", "latest_hidden", "private"),
  }),
  fc.record({ kind: fc.constant("featured" as const), thread: fc.nat(), featured: fc.boolean() }),
  fc.record({ kind: fc.constant("delete" as const), post: fc.nat() }),
);

/** A random site: Threads of every state, then a few changes. */
export const siteSpec = fc.record({
  threads: fc.array(threadSpec, { minLength: 1, maxLength: 5 }),
  changes: fc.array(changeSpec, { maxLength: 6 }),
});

/** A generated site. */
export type SiteSpec = typeof siteSpec extends fc.Arbitrary<infer S> ? S : never;

/** A post as the model knows it. */
export interface ModelPost {
  id: string;
  slug: string;
  threadId: string;
  parentId: string | null;
  status: string;
  quiet: boolean;
  createdAt: number;
  publishedAt: number | null;
  /** Media IDs of its attachments, in order. */
  attachments: string[];
  deleted: boolean;
}

/** A Thread as the model knows it (its root's flags). */
export interface ModelThread {
  id: string;
  format: string;
  visibility: string;
  featured: boolean;
  titled: boolean;
  /** Kinds of the root's attachments. */
  mediaKinds: Set<string>;
}

/** The model of a built site. */
export interface SiteModel {
  posts: ModelPost[];
  threads: ModelThread[];
}

/** Builds the site in-process (the owner's operations) and records the model alongside. */
export async function buildSite(engine: Engine, spec: SiteSpec): Promise<SiteModel> {
  const model: SiteModel = { posts: [], threads: [] };
  let at = T;
  for (const [n, thread] of spec.threads.entries()) {
    at += 10;
    const attachments = await attachmentsFor(engine, thread);
    const root = await engine.posts.create({
      format: thread.format as "note" | "link" | "quote",
      ...formatFields(thread.format, thread.titled, n),
      status: thread.status as "published" | "draft",
      visibility: thread.visibility as "public" | "latest_hidden" | "private",
      featured: thread.featured,
      pinned: thread.pinned,
      rating: thread.rating,
      createdAt: at,
      ...(thread.status === "published" ? { publishedAt: T + thread.publishedOffset } : {}),
      attachments,
    });
    model.threads.push({
      id: root.id,
      format: thread.format,
      visibility: thread.visibility,
      featured: thread.featured,
      titled: thread.format === "link" || (thread.format === "note" && thread.titled),
      mediaKinds: new Set([...(thread.text ? ["text"] : []), ...(thread.image ? ["image"] : [])]),
    });
    const posts: ModelPost[] = [record(root, null, thread.status, false, at, thread)];
    for (const reply of thread.replies) {
      at += 10;
      const parent =
        reply.parent === 0 ? posts[0] : posts[posts.length - 1 - ((reply.parent - 1) % posts.length)];
      const replyAttachments = await attachmentsFor(engine, reply);
      const created = await engine.posts.create({
        format: "note",
        bodyMarkdown: `reply at ${at}`,
        replyToId: parent?.id,
        status: reply.status as "published" | "draft",
        quietReply: reply.quiet,
        createdAt: at,
        ...(reply.status === "published" ? { publishedAt: T + reply.publishedOffset } : {}),
        attachments: replyAttachments,
      });
      posts.push(record(created, parent?.id ?? null, reply.status, reply.quiet, at, reply));
    }
    model.posts.push(...posts);
  }
  for (const change of spec.changes) await applyChange(engine, model, change);
  return model;
}

function formatFields(format: string, titled: boolean, n: number) {
  if (format === "link") return { title: `Link ${n}`, url: `https://example.com/${n}` };
  if (format === "quote") return { quoteText: `Quote ${n}` };
  return titled ? { title: `Note ${n}`, bodyMarkdown: "text" } : { bodyMarkdown: `untitled ${n}` };
}

type AttachmentSpec = { type: "media"; mediaId: string } | { type: "text"; content: string };

async function attachmentsFor(
  engine: Engine,
  spec: { text: boolean; image: boolean },
): Promise<AttachmentSpec[]> {
  const out: AttachmentSpec[] = [];
  if (spec.image) {
    const media = await engine.media.upload({
      file: pngFile(2, 2, 200),
      filename: "dot.png",
      contentType: "image/png",
    });
    out.push({ type: "media", mediaId: media.id });
  }
  if (spec.text) out.push({ type: "text", content: "# Attached\n\nnotes" });
  return out;
}

function record(
  view: { id: string; slug: string; threadId: string; attachments: { id: string }[] },
  parentId: string | null,
  status: string,
  quiet: boolean,
  createdAt: number,
  spec: { publishedOffset: number },
): ModelPost {
  return {
    id: view.id,
    slug: view.slug,
    threadId: view.threadId,
    parentId,
    status,
    quiet,
    createdAt,
    publishedAt: status === "published" ? T + spec.publishedOffset : null,
    attachments: view.attachments.map((attachment) => attachment.id),
    deleted: false,
  };
}

async function applyChange(
  engine: Engine,
  model: SiteModel,
  change: SiteSpec["changes"][number],
): Promise<void> {
  const live = model.posts.filter((post) => !post.deleted);
  if (change.kind === "status") {
    const post = live[change.post % live.length] as ModelPost;
    const publishedAt = T + change.publishedOffset;
    await engine.posts.update({
      id: post.id,
      status: change.status as "published" | "draft",
      ...(change.status === "published" ? { publishedAt } : {}),
    });
    post.status = change.status;
    post.publishedAt = change.status === "published" ? publishedAt : null;
  } else if (change.kind === "visibility" || change.kind === "featured") {
    const thread = model.threads[change.thread % model.threads.length] as ModelThread;
    if (change.kind === "visibility") {
      await engine.posts.update({
        id: thread.id,
        visibility: change.visibility as "public" | "latest_hidden" | "private",
      });
      thread.visibility = change.visibility;
    } else {
      await engine.posts.update({ id: thread.id, featured: change.featured });
      thread.featured = change.featured;
    }
  } else {
    const replies = live.filter((post) => post.id !== post.threadId);
    const reply = replies[change.post % Math.max(1, replies.length)];
    if (!reply) return;
    await engine.posts.delete({ id: reply.id });
    reply.deleted = true;
    // Its replies move up to its parent (docs/threads.md § Replies).
    for (const post of model.posts) if (post.parentId === reply.id) post.parentId = reply.parentId;
  }
}

/** The Thread of a post. */
export function threadOf(model: SiteModel, post: ModelPost): ModelThread {
  return model.threads.find((thread) => thread.id === post.threadId) as ModelThread;
}

/** The root post of a Thread. */
export function rootOf(model: SiteModel, thread: ModelThread): ModelPost {
  return model.posts.find((post) => post.id === thread.id) as ModelPost;
}

/** A reader may see a post: it exists and is published, under a published root of a Thread that is not private. */
export function isVisible(model: SiteModel, post: ModelPost): boolean {
  const thread = threadOf(model, post);
  const root = rootOf(model, thread);
  return (
    !post.deleted &&
    post.status === "published" &&
    root.status === "published" &&
    thread.visibility !== "private"
  );
}

/** The published replies of a Thread in Thread order (createdAt, then ID). */
export function publishedReplies(model: SiteModel, thread: ModelThread): ModelPost[] {
  return model.posts
    .filter(
      (post) =>
        post.threadId === thread.id && post.id !== thread.id && !post.deleted && post.status === "published",
    )
    .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
}

/** What a visible Thread's figures and fold must be. @see spec § Thread, § Fold */
export function expectedThread(model: SiteModel, thread: ModelThread) {
  const root = rootOf(model, thread);
  const replies = publishedReplies(model, thread);
  const times = (posts: ModelPost[]) => posts.map((post) => post.publishedAt as number);
  const leading = replies.slice(0, 2);
  const trailing = replies.length <= 5 ? replies.slice(2) : replies.slice(-3);
  return {
    postCount: 1 + replies.length,
    lastActivityAt: Math.max(...times([root, ...replies.filter((reply) => !reply.quiet)])),
    threadUpdatedAt: Math.max(...times([root, ...replies])),
    fold: {
      leading: leading.map((post) => post.id),
      trailing: trailing.map((post) => post.id),
      hidden: Math.max(0, replies.length - 5),
      gap: replies.length > 5 ? (replies[2] as ModelPost).id : null,
    },
    replies,
  };
}

/** A Thread list query of the public surface. */
export interface PublicListQuery {
  sort?: string | undefined;
  visibility?: string | undefined;
  format?: string | undefined;
  title?: string | undefined;
  replies?: string | undefined;
  media?: string | undefined;
  fold: boolean;
  limit: number;
}

/** Queries of the public Thread list: every visibility, sort and filter, featured only by publication. */
export const publicListQuery: fc.Arbitrary<PublicListQuery> = fc
  .record({
    sort: fc.constantFrom(undefined, "activity", "published", "updated", "oldest", "rating"),
    visibility: fc.constantFrom(undefined, "public", "hidden", "latest_hidden", "any", "featured"),
    format: fc.constantFrom(undefined, undefined, "note", "link", "quote"),
    title: fc.constantFrom(undefined, undefined, "any", "none"),
    replies: fc.constantFrom(undefined, undefined, "any", "none"),
    media: fc.constantFrom(undefined, undefined, "any", "none", "text", "image", "image,text"),
    fold: fc.boolean(),
    limit: fc.integer({ min: 1, max: 4 }),
  })
  .map((query) =>
    query.visibility === "featured" && query.sort !== undefined ? { ...query, sort: "published" } : query,
  );

/** The roots a public list query must return, as a set of IDs. @see spec § Threads rules 1–3, docs/threads.md */
export function expectedRoots(model: SiteModel, query: PublicListQuery): Set<string> {
  const ids = new Set<string>();
  for (const thread of model.threads) {
    const root = rootOf(model, thread);
    if (root.status !== "published" || thread.visibility === "private") continue;
    const shown =
      query.visibility === undefined || query.visibility === "public"
        ? thread.visibility === "public"
        : query.visibility === "hidden" || query.visibility === "latest_hidden"
          ? thread.visibility === "latest_hidden"
          : query.visibility === "featured"
            ? thread.featured
            : true;
    if (!shown) continue;
    if (query.format && thread.format !== query.format) continue;
    if (query.title && (query.title === "any") !== thread.titled) continue;
    const replies = publishedReplies(model, thread).length;
    if (query.replies && (query.replies === "any") !== replies > 0) continue;
    if (query.media === "any" && thread.mediaKinds.size === 0) continue;
    if (query.media === "none" && thread.mediaKinds.size > 0) continue;
    if (query.media && !["any", "none"].includes(query.media)) {
      if (!query.media.split(",").some((kind) => thread.mediaKinds.has(kind))) continue;
    }
    ids.add(thread.id);
  }
  return ids;
}
