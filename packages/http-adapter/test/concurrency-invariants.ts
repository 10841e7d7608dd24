import type { Database } from "@quire/core";
import type { Kysely } from "kysely";
import { expect } from "vitest";

/**
 * What must hold in the database after any set of concurrent writes, whichever order they ran in:
 * - every stored Thread figure equals a recomputation from the Thread's posts, and every reply
 *   answers an existing post of its Thread;
 * - every address is held by exactly the record it names, and every post holds its slug;
 * - every attachment belongs to an existing post, at a distinct position;
 * - an upload session is in one state: completed with exactly its media row, or without one.
 * Failures are collected, so one run reports every broken Thread, not only the first.
 * @see docs/reliability.md
 */
export async function checkInvariants(db: Kysely<Database>): Promise<void> {
  const failures = [
    ...(await threadFigureFailures(db)),
    ...(await threadShapeFailures(db)),
    ...(await addressFailures(db)),
    ...(await attachmentFailures(db)),
    ...(await uploadSessionFailures(db)),
  ];
  expect.soft(failures).toEqual([]);
}

/** Stored Thread figures on each root against figures recomputed from its posts. */
export async function threadFigureFailures(db: Kysely<Database>): Promise<string[]> {
  const posts = await db
    .selectFrom("posts")
    .select([
      "id",
      "thread_id",
      "status",
      "quiet_reply",
      "published_at",
      "created_at",
      "thread_post_count",
      "thread_reply_count",
      "last_activity_at",
      "thread_updated_at",
    ])
    .execute();
  const byThread = groupBy(posts, (post) => post.thread_id);
  const failures: string[] = [];
  for (const [threadId, members] of byThread) {
    const root = members.find((post) => post.id === threadId);
    if (!root) {
      failures.push(`Thread ${threadId}: ${members.length} posts without their root`);
      continue;
    }
    const published = members.filter((post) => post.status === "published");
    const newest = (list: typeof published) =>
      list.length === 0
        ? Number(root.created_at)
        : Math.max(...list.map((post) => Number(post.published_at)));
    const expected = {
      postCount: published.length,
      replyCount: published.filter((post) => post.id !== threadId).length,
      lastActivityAt: newest(published.filter((post) => Number(post.quiet_reply) === 0)),
      threadUpdatedAt: newest(published),
    };
    const stored = {
      postCount: Number(root.thread_post_count),
      replyCount: Number(root.thread_reply_count),
      lastActivityAt: Number(root.last_activity_at),
      threadUpdatedAt: Number(root.thread_updated_at),
    };
    if (JSON.stringify(stored) !== JSON.stringify(expected)) {
      failures.push(
        `Thread ${threadId}: stored ${JSON.stringify(stored)}, posts say ${JSON.stringify(expected)}`,
      );
    }
  }
  return failures;
}

/** Every reply answers a post of its own Thread; only a root has no parent. */
async function threadShapeFailures(db: Kysely<Database>): Promise<string[]> {
  const posts = await db.selectFrom("posts").select(["id", "thread_id", "reply_to_id"]).execute();
  const threadOf = new Map(posts.map((post) => [post.id, post.thread_id]));
  return posts
    .filter((post) =>
      post.id === post.thread_id
        ? post.reply_to_id !== null
        : post.reply_to_id === null || threadOf.get(post.reply_to_id) !== post.thread_id,
    )
    .map((post) => `post ${post.id} answers ${post.reply_to_id}, not a post of Thread ${post.thread_id}`);
}

async function addressFailures(db: Kysely<Database>): Promise<string[]> {
  const addresses = await db.selectFrom("site_addresses").selectAll().execute();
  const posts = await db.selectFrom("posts").select(["id", "slug"]).execute();
  const aliases = await db
    .selectFrom("custom_urls")
    .select(["id", "path", "target_type", "target_id"])
    .execute();
  const postById = new Map(posts.map((post) => [post.id, post]));
  const aliasById = new Map(aliases.map((alias) => [alias.id, alias]));
  const failures: string[] = [];
  const held = new Map(addresses.map((address) => [address.path, address]));
  for (const post of posts) {
    const address = held.get(post.slug);
    if (address?.owner_id !== post.id) failures.push(`post ${post.id} does not hold its slug /${post.slug}`);
  }
  for (const address of addresses) {
    const owner =
      address.owner_type === "post"
        ? postById.get(address.owner_id)?.slug
        : address.owner_type === "custom_url"
          ? aliasById.get(address.owner_id)?.path.slice(1)
          : address.path;
    if (owner !== address.path)
      failures.push(`/${address.path} is held by a missing or moved ${address.owner_type}`);
  }
  for (const alias of aliases) {
    if (alias.target_type === "post" && !postById.has(alias.target_id ?? "")) {
      failures.push(`custom URL ${alias.path} points at missing post ${alias.target_id}`);
    }
  }
  return failures;
}

async function attachmentFailures(db: Kysely<Database>): Promise<string[]> {
  const attached = await db
    .selectFrom("media")
    .select(["id", "post_id", "position"])
    .where("post_id", "is not", null)
    .execute();
  const postIds = new Set((await db.selectFrom("posts").select("id").execute()).map((post) => post.id));
  const failures: string[] = [];
  for (const [postId, media] of groupBy(attached, (row) => row.post_id as string)) {
    if (!postIds.has(postId))
      failures.push(`media ${media.map((row) => row.id)} attached to missing post ${postId}`);
    const positions = media.map((row) => Number(row.position)).sort((a, b) => a - b);
    if (positions.some((position, index) => position !== index)) {
      failures.push(`post ${postId} has attachments at positions ${positions}`);
    }
  }
  return failures;
}

async function uploadSessionFailures(db: Kysely<Database>): Promise<string[]> {
  const sessions = await db.selectFrom("upload_sessions").select(["id", "state", "media_id"]).execute();
  const mediaIds = new Set((await db.selectFrom("media").select("id").execute()).map((row) => row.id));
  return sessions
    .filter((session) => (session.state === "completed") !== mediaIds.has(session.media_id))
    .map(
      (session) =>
        `upload ${session.id} is ${session.state} with${mediaIds.has(session.media_id) ? "" : "out"} a media row`,
    );
}

function groupBy<T>(items: T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const group = groups.get(key(item));
    if (group) group.push(item);
    else groups.set(key(item), [item]);
  }
  return groups;
}

/** Answers counted by status, e.g. `{ 201: 49, 409: 1 }`, for assertions that print the mix. */
export function statusCounts(responses: { status: number }[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const response of responses) counts[response.status] = (counts[response.status] ?? 0) + 1;
  return counts;
}
