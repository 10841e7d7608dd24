import type { Kysely } from "kysely";
import type { Database } from "../db/schema.js";
import type { EngineContext } from "../deps.js";
import { conflict, invalidField, notFound } from "../errors.js";
import { findPost, type PostRow } from "./post-query.js";

// The translation-group seam: which Thread roots are versions of one another. A root's group is
// its `translation_group_id`; a partial unique index on (group, language) keeps one post per
// language in a group even between concurrent writers. A group counts only while it holds two
// posts or more: when the last but one leaves (unlinked or deleted), the group of one is dissolved
// — its post reads no translations and links again as a post without a group. Every write here
// runs in its caller's transaction with the roots it touches locked.
// @see docs/languages.md § Translation groups

/** A member of a translation group, as the group's reads need it. */
export interface GroupMember {
  id: string;
  language: string | null;
}

/** The posts of a group, by group ID (a group of one included). */
export async function groupMembers(db: Kysely<Database>, groupId: string): Promise<GroupMember[]> {
  return db
    .selectFrom("posts")
    .select(["id", "language"])
    .where("translation_group_id", "=", groupId)
    .orderBy("id")
    .execute();
}

/**
 * The group a root is in, with its members, or undefined when it is in none: no group, or a group
 * of one (dissolved).
 */
export async function activeGroupOf(
  db: Kysely<Database>,
  root: { translation_group_id: string | null },
): Promise<{ id: string; members: GroupMember[] } | undefined> {
  if (!root.translation_group_id) return undefined;
  const members = await groupMembers(db, root.translation_group_id);
  return members.length >= 2 ? { id: root.translation_group_id, members } : undefined;
}

/** Runs `write`, answering CONFLICT with `message` when the (group, language) index refuses it. */
async function orConflict<T>(
  ctx: Pick<EngineContext, "dialect">,
  message: string,
  write: () => Promise<T>,
): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (ctx.dialect.isUniqueViolation(err)) throw conflict(message);
    throw err;
  }
}

/**
 * Sets the language of a whole Thread (root and every reply; the Thread is locked by the caller).
 * CONFLICT when another post of the root's group holds that language, or when it would clear the
 * language of a root in a group (a group's posts each have a language).
 */
export async function applyThreadLanguage(
  ctx: Pick<EngineContext, "db" | "dialect" | "clock">,
  root: PostRow,
  language: string | null,
): Promise<void> {
  const group = await activeGroupOf(ctx.db, root);
  if (group) {
    if (language === null) {
      throw conflict("A post in a translation group needs a language; unlink it first");
    }
    if (group.members.some((m) => m.id !== root.id && m.language === language)) {
      throw conflict(`Another post of this translation group is already in ${language}`);
    }
  }
  // Each post whose language changes is edited: its updatedAt moves (spec § Post: "last row write,
  // edits included"); one already in the language is not written.
  await orConflict(ctx, `Another post of this translation group is already in ${language}`, () =>
    ctx.db
      .updateTable("posts")
      .set({ language, updated_at: ctx.clock.now() })
      .where("thread_id", "=", root.id)
      .where((eb) =>
        language === null
          ? eb("language", "is not", null)
          : eb.or([eb("language", "is", null), eb("language", "<>", language)]),
      )
      .execute(),
  );
}

/** Which request fields name the two sides of a link, for 400s. */
export interface LinkFields {
  id: string;
  postId: string;
}

/**
 * Links root `id` and root `postId` as translations of each other, applying spec § Translation
 * group: a side without a group joins the other's; two without one form a new group; two already
 * in groups (the same one included), or two posts of one language, or a language the group holds:
 * CONFLICT. Runs in the caller's transaction; locks both
 * roots (in ID order, so two links never wait on each other in a cycle).
 */
export async function linkTranslations(
  ctx: Pick<EngineContext, "db" | "dialect" | "ids">,
  input: { id: string; postId: string; fields: LinkFields },
): Promise<void> {
  const { db } = ctx;
  if (input.id === input.postId)
    throw invalidField(input.fields.postId, "A post cannot be its own translation");
  for (const id of [input.id, input.postId].sort()) await ctx.dialect.lockRow(db, { table: "posts", id });
  const post = await findLinkable(db, input.id, input.fields.id);
  const other = await findLinkable(db, input.postId, input.fields.postId);
  if (post.language === null || other.language === null) {
    throw conflict("Both posts need a language before they can be linked as translations");
  }
  if (post.language === other.language) {
    throw conflict(`Both posts are in ${post.language}: translations are in different languages`);
  }
  const postGroup = await activeGroupOf(db, post);
  const otherGroup = await activeGroupOf(db, other);
  if (postGroup && otherGroup) {
    // One group too: spec § Translation group answers 409 whenever both sides already have one.
    if (postGroup.id === otherGroup.id) throw conflict("These posts are already translations of each other");
    throw conflict("Both posts are already in translation groups; unlink one first");
  }
  const joined = postGroup ?? otherGroup;
  const newcomer = postGroup ? other : post;
  if (joined) {
    if (joined.members.some((m) => m.language === newcomer.language)) {
      throw conflict(`The translation group already has a post in ${newcomer.language}`);
    }
    await setGroup(ctx, [newcomer.id], joined.id, newcomer.language as string);
    return;
  }
  // Neither is in a group that counts: reuse a dissolved group's ID, or mint one.
  const groupId = other.translation_group_id ?? post.translation_group_id ?? ctx.ids.generate("trg");
  await setGroup(ctx, [post.id, other.id], groupId, newcomer.language as string);
}

/** Takes root `id` out of its translation group; the others stay linked (a group of one dissolves). */
export async function unlinkTranslation(
  ctx: Pick<EngineContext, "db" | "dialect">,
  input: { id: string; field: string },
): Promise<void> {
  await ctx.dialect.lockRow(ctx.db, { table: "posts", id: input.id });
  const post = await findLinkable(ctx.db, input.id, input.field);
  if (post.translation_group_id === null) return;
  await ctx.db.updateTable("posts").set({ translation_group_id: null }).where("id", "=", post.id).execute();
}

async function setGroup(
  ctx: Pick<EngineContext, "db" | "dialect">,
  ids: string[],
  groupId: string,
  language: string,
): Promise<void> {
  await orConflict(ctx, `The translation group already has a post in ${language}`, () =>
    ctx.db.updateTable("posts").set({ translation_group_id: groupId }).where("id", "in", ids).execute(),
  );
}

/** A Thread root by ID: 404 when absent, 400 naming `field` for a reply (replies are not translated). */
async function findLinkable(db: Kysely<Database>, id: string, field: string): Promise<PostRow> {
  const row = await findPost(db, id);
  if (!row) throw notFound("post", id);
  if (row.id !== row.thread_id) {
    throw invalidField(field, "Translations link Thread roots; this post is a reply");
  }
  return row;
}

/**
 * The version of a root's Thread in `language` a reader may see (a published, non-private root of
 * its group), or undefined: no group, no such version, or the root is already in that language.
 */
export async function readableVersionIn(
  db: Kysely<Database>,
  root: { id: string; language: string | null; translation_group_id: string | null },
  language: string,
): Promise<string | undefined> {
  if (root.language === language || !root.translation_group_id) return undefined;
  const row = await db
    .selectFrom("posts")
    .select("id")
    .where("translation_group_id", "=", root.translation_group_id)
    .where("language", "=", language)
    .where("reply_to_id", "is", null)
    .where("status", "=", "published")
    .where("visibility", "<>", "private")
    .executeTakeFirst();
  return row?.id;
}
