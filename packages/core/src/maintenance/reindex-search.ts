import { defineOperation } from "../operation.js";
import { type KeysetOrder, pageByKeys } from "../pagination/keyset.js";
import { lockThreadOf } from "../posts/thread-lock.js";
import { indexPost } from "../search/search-index.js";
import { reindexSearchInput, reindexSearchOutput } from "./maintenance-schemas.js";

/** Every post, by ID: the order a reindex walks. */
const reindexOrder: KeysetOrder<{ id: string }> = {
  name: "reindex",
  direction: "asc",
  keys: [{ column: "id", type: "string" }],
};

/**
 * Rewrites the search rows of one batch of posts (in ID order) from the posts as they stand: a
 * published post gets its text, any other none. Each post is rewritten in its own short
 * transaction that first takes its Thread's lock, as an edit does, so an edit committed meanwhile
 * is never overwritten with older text. Answers `nextCursor` until the last batch; an operator
 * loops. @see docs/internal-admin.md § Search reindex
 */
export const reindexSearch = defineOperation({
  id: "search.reindex",
  access: "internal",
  description: "Rewrites the search index for one batch of posts; pass nextCursor back until it is null.",
  hints: { idempotent: true },
  input: reindexSearchInput,
  output: reindexSearchOutput,
  run: async (ctx, input) => {
    const page = await pageByKeys(ctx.db.selectFrom("posts").select(["id", "status"]), reindexOrder, input);
    let indexed = 0;
    for (const post of page.rows) {
      const written = await ctx.db.transaction().execute(async (trx) => {
        // The post may be gone by now: then indexPost removes any row it left.
        await lockThreadOf({ db: trx }, post.id);
        return indexPost(trx, post.id);
      });
      if (written) indexed++;
    }
    return { processed: page.rows.length, indexed, nextCursor: page.nextCursor };
  },
});
