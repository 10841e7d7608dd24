import type { Kysely } from "kysely";
import { syncThreadMemberships } from "../collections/memberships.js";
import { releaseAddressesOf } from "../custom-urls/addresses.js";
import { removeAliasesOf } from "../custom-urls/aliases.js";
import type { Database } from "../db/schema.js";
import { notFound } from "../errors.js";
import { deleteMediaOfPosts } from "../files/media-rows.js";
import { deleteStoredKeys } from "../files/stored-objects.js";
import { defineOperation } from "../operation.js";
import { unindexPosts } from "../search/search-index.js";
import { successOutput } from "../shared/outputs.js";
import { findPost } from "./post-query.js";
import { postIdInput } from "./post-schemas.js";
import { refreshThreadFigures } from "./thread-figures.js";
import { lockThreadOf } from "./thread-lock.js";

/**
 * Deletes a post with its attachments (files included); a root takes its replies with it. A
 * deleted reply's own replies move up to answer its parent. Answers ok-body.
 * @see spec § DELETE /api/posts/:id
 */
export const deletePost = defineOperation({
  id: "posts.delete",
  access: "owner",
  description: "Deletes a post with its attachments; deleting a root deletes its whole Thread.",
  hints: { destructive: true, idempotent: true },
  input: postIdInput.pick({ id: true }),
  output: successOutput,
  run: async (ctx, input) => {
    const keys = await ctx.db.transaction().execute(async (trx) => {
      await lockThreadOf({ ...ctx, db: trx }, input.id);
      const row = await findPost(trx, input.id);
      if (!row) throw notFound("post", input.id);
      const isRoot = row.id === row.thread_id;
      const doomed = (db: Kysely<Database>) =>
        isRoot
          ? db.selectFrom("posts").select("id").where("thread_id", "=", row.id)
          : db.selectFrom("posts").select("id").where("id", "=", row.id);
      const keys = await deleteMediaOfPosts(trx, doomed(trx));
      await removeAliasesOf(trx, { targetType: "post", targetIds: doomed(trx) });
      await releaseAddressesOf(trx, doomed(trx));
      await unindexPosts(trx, doomed(trx));
      if (!isRoot) {
        await trx
          .updateTable("posts")
          .set({ reply_to_id: row.reply_to_id })
          .where("reply_to_id", "=", row.id)
          .execute();
      }
      await trx.deleteFrom("posts").where("id", "in", doomed(trx)).execute();
      if (!isRoot) await refreshThreadFigures(trx, row.thread_id);
      // A deleted root takes its Thread out of its collections; a reply may change its activity.
      await syncThreadMemberships({ ...ctx, db: trx }, row.thread_id);
      return keys;
    });
    await deleteStoredKeys(ctx, keys);
    return { success: true as const };
  },
});
