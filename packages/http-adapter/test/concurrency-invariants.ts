import type { Database } from "@quire/core";
import type { Kysely } from "kysely";
import { expect } from "vitest";

/**
 * What must hold in the database after any set of concurrent writes, whichever order they ran in:
 * - every stored Thread figure equals a recomputation from the Thread's posts, and every reply
 *   answers an existing post of its Thread;
 * - every address is held by exactly the record it names, and every post holds its slug;
 * - every attachment belongs to an existing post, at a distinct position;
 * - an upload session is in one state: completed with exactly its media row, or without one;
 * - every collection membership names an existing collection and Thread root, with the root's
 *   status, language and activity as they are, and every collection's figures match its memberships;
 * - navigation and directory items each have a place of their own; every collection has one
 *   directory item, and no directory item names a missing collection or smart collection;
 * - no translation group holds two Threads in one language, nor a reply.
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
    ...(await membershipFailures(db)),
    ...(await orderFailures(db)),
    ...(await translationFailures(db)),
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

/** Memberships against their collections and roots, and each collection's figures against its memberships. */
async function membershipFailures(db: Kysely<Database>): Promise<string[]> {
  const memberships = await db.selectFrom("collection_threads").selectAll().execute();
  const collections = new Set(
    (await db.selectFrom("collections").select("id").execute()).map((row) => row.id),
  );
  const roots = new Map(
    (
      await db
        .selectFrom("posts")
        .select(["id", "status", "language", "last_activity_at"])
        .whereRef("id", "=", "thread_id")
        .execute()
    ).map((root) => [root.id, root]),
  );
  const failures: string[] = [];
  for (const member of memberships) {
    const root = roots.get(member.thread_id);
    const where = `collection ${member.collection_id}, Thread ${member.thread_id}`;
    if (!collections.has(member.collection_id)) failures.push(`${where}: the collection is gone`);
    if (!root) {
      failures.push(`${where}: no such Thread root`);
      continue;
    }
    const kept = [member.thread_status, member.thread_language, Number(member.thread_activity_at)];
    const actual = [root.status, root.language ?? "", Number(root.last_activity_at)];
    if (kept.join() !== actual.join()) failures.push(`${where}: keeps ${kept}, the root has ${actual}`);
  }
  const expected = new Map<string, { count: number; newest: number }>();
  for (const member of memberships) {
    if (member.thread_status !== "published") continue;
    const key = `${member.collection_id} ${member.thread_language}`;
    const figure = expected.get(key) ?? { count: 0, newest: 0 };
    figure.count += 1;
    figure.newest = Math.max(figure.newest, Number(member.thread_activity_at));
    expected.set(key, figure);
  }
  const stored = new Map(
    (await db.selectFrom("collection_figures").selectAll().execute()).map((row) => [
      `${row.collection_id} ${row.language}`,
      { count: Number(row.thread_count), newest: Number(row.recent_activity_at) },
    ]),
  );
  for (const key of new Set([...expected.keys(), ...stored.keys()])) {
    const [want, have] = [expected.get(key), stored.get(key)];
    if (want?.count !== have?.count || want?.newest !== have?.newest)
      failures.push(
        `figures of ${key}: stored ${JSON.stringify(have)}, memberships give ${JSON.stringify(want)}`,
      );
  }
  return failures;
}

/**
 * Navigation and directory items: one place each. Every collection has exactly one directory item,
 * and no directory item names a missing collection or smart collection. (A navigation item whose
 * target is deleted stays, left out of the list: docs/navigation.md § When a target goes away.)
 */
async function orderFailures(db: Kysely<Database>): Promise<string[]> {
  const failures: string[] = [];
  const nav = await db.selectFrom("nav_items").select(["id", "position"]).execute();
  const directory = await db
    .selectFrom("directory_items")
    .select(["id", "position", "type", "collection_id", "smart_collection_id"])
    .execute();
  for (const [table, items] of [
    ["nav_items", nav],
    ["directory_items", directory],
  ] as const) {
    for (const [position, sharing] of groupBy([...items], (item) => item.position)) {
      if (sharing.length > 1)
        failures.push(`${table}: ${sharing.map((item) => item.id)} share place ${position}`);
    }
  }
  const ids = async (table: "collections" | "smart_collections") =>
    new Set((await db.selectFrom(table).select("id").execute()).map((row) => row.id));
  const [collections, smart] = [await ids("collections"), await ids("smart_collections")];
  for (const item of directory) {
    if (
      (item.collection_id !== null && !collections.has(item.collection_id)) ||
      (item.smart_collection_id !== null && !smart.has(item.smart_collection_id))
    )
      failures.push(`directory item ${item.id} points at a missing ${item.type}`);
  }
  const placed = groupBy(
    directory.filter((item) => item.collection_id !== null),
    (item) => item.collection_id as string,
  );
  for (const id of collections) {
    const count = placed.get(id)?.length ?? 0;
    if (count !== 1) failures.push(`collection ${id} has ${count} directory items`);
  }
  return failures;
}

/** Translation groups: Thread roots only, one per language. */
async function translationFailures(db: Kysely<Database>): Promise<string[]> {
  const grouped = await db
    .selectFrom("posts")
    .select(["id", "thread_id", "language", "translation_group_id"])
    .where("translation_group_id", "is not", null)
    .execute();
  const failures: string[] = [];
  for (const [group, members] of groupBy(grouped, (post) => post.translation_group_id as string)) {
    const replies = members.filter((post) => post.id !== post.thread_id);
    if (replies.length > 0) failures.push(`group ${group} holds replies ${replies.map((post) => post.id)}`);
    for (const [language, sharing] of groupBy(members, (post) => post.language ?? "")) {
      if (sharing.length > 1)
        failures.push(`group ${group} holds ${sharing.map((post) => post.id)} in "${language}"`);
    }
  }
  return failures;
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
