import { prepareAttachments } from "../attachments/save-attachments.js";
import { deleteStoredKeys } from "../files/stored-objects.js";
import { defineOperation } from "../operation.js";
import { contentParam } from "../shared/list-params.js";
import {
  claimPlainRoot,
  insertPost,
  isPlainRoot,
  plainRootView,
  planCreate,
  writeNewRows,
  writePlainRootAtOnce,
} from "./create-write.js";
import { postOutput } from "./post-output.js";
import { createPostInput } from "./post-schemas.js";
import { readPost } from "./read-post.js";

/**
 * Creates a post: a Thread root, or a reply when `replyToId` is set. 201 with the full post.
 * The body is rendered once, before the transaction; a plain root (no parent, translation,
 * collections, attachments or custom path) is written as its rows in one transaction (on
 * PostgreSQL in one statement when its address is free) and answered from those rows, anything
 * else step by step and read back before the commit. @see docs/posts.md § Write path
 * @see spec § POST /api/posts, § States (post status and visibility)
 */
export const createPost = defineOperation({
  id: "posts.create",
  access: "owner",
  description: "Creates a post: a Thread root, or a reply when replyToId is set.",
  // `content: markdown` answers with bodyMarkdown in place of the rendered fields (spec § MCP rule
  // 4: post-returning tools take it); not an item field of a bulk create.
  input: createPostInput.extend({ content: contentParam }),
  output: postOutput,
  run: async (ctx, input) => {
    const plan = await planCreate(ctx, input);
    const { prepared, storedKeys } = await prepareAttachments(ctx, plan.input.attachments ?? []);
    const id = ctx.ids.generate("pst");
    try {
      if (isPlainRoot(plan, prepared)) {
        const rows =
          (await writePlainRootAtOnce(ctx, plan, id, ctx.clock.now())) ??
          (await ctx.db.transaction().execute(async (trx) => {
            const trxCtx = { ...ctx, db: trx };
            const built = await claimPlainRoot(trxCtx, plan, id, ctx.clock.now());
            await writeNewRows(trxCtx, [built]);
            return built;
          }));
        return plainRootView(ctx, rows, input.content);
      }
      return await ctx.db.transaction().execute(async (trx) => {
        const trxCtx = { ...ctx, db: trx };
        await insertPost(trxCtx, plan, prepared, id);
        // Read before the commit: after it, another writer could delete the Thread first. A new
        // post's attachments are the ones this create attached.
        return readPost(trxCtx, id, {
          content: input.content,
          withPosition: false,
          withoutAttachments: prepared.length === 0,
        });
      });
    } catch (err) {
      await deleteStoredKeys(ctx, storedKeys);
      throw err;
    }
  },
});
