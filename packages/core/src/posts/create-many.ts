import type { Kysely } from "kysely";
import * as z from "zod";
import { type PreparedAttachment, prepareAttachments } from "../attachments/save-attachments.js";
import type { Database } from "../db/schema.js";
import { EngineError, isEngineError, type ValidationDetails, validationError } from "../errors.js";
import { deleteStoredKeys } from "../files/stored-objects.js";
import { defineOperation } from "../operation.js";
import {
  type CreatePlan,
  claimPlainRoot,
  insertPost,
  isPlainRoot,
  type NewPostRows,
  planCreate,
  writeNewRows,
} from "./create-write.js";
import { createPostInput } from "./post-schemas.js";

/** Most posts one `posts.createMany` call takes; an import sends more as several calls. */
export const maxPostsPerCall = 1000;

/** Input of `posts.createMany`: the create inputs, in the order they are created. */
export const createManyPostsInput = z.object({
  posts: z.array(createPostInput).min(1).max(maxPostsPerCall),
});

/** What `posts.createMany` answers: each new post's ID and slug, in input order. */
export const createManyPostsOutput = z.object({
  posts: z.array(z.object({ id: z.string().startsWith("pst_"), slug: z.string() })),
});

/**
 * Creates many posts in one transaction, all or none: for imports and restores. Each input is
 * checked and stored exactly as `posts.create` would check and store it, in order (a reply may
 * answer a post made earlier in the same call only by an ID it cannot know yet, so replies name
 * existing posts); errors name the item (`posts[3].title`). Plain roots are written with multi-row
 * inserts; other posts step by step, in their place. In-process only. @see docs/posts.md § Bulk create
 */
export const createManyPosts = defineOperation({
  id: "posts.createMany",
  access: "owner",
  description:
    "Creates many posts at once, all or none, each checked and stored as posts.create would; for imports.",
  input: createManyPostsInput,
  output: createManyPostsOutput,
  run: async (ctx, input) => {
    const plans: CreatePlan[] = [];
    for (const [index, post] of input.posts.entries()) {
      plans.push(await atItem(index, () => planCreate(ctx, post)));
    }
    const prepared: PreparedAttachment[][] = [];
    const storedKeys: string[] = [];
    try {
      for (const [index, plan] of plans.entries()) {
        const files = await atItem(index, () => prepareAttachments(ctx, plan.input.attachments ?? []));
        prepared.push(files.prepared);
        storedKeys.push(...files.storedKeys);
      }
      const created = await ctx.db.transaction().execute(async (trx) => {
        const trxCtx = { ...ctx, db: trx };
        const answers: { id: string; slug: string }[] = [];
        let pending: NewPostRows[] = [];
        for (const [index, plan] of plans.entries()) {
          const id = ctx.ids.generate("pst");
          const files = prepared[index] ?? [];
          if (isPlainRoot(plan, files)) {
            const rows = await atItem(index, () => claimPlainRoot(trxCtx, plan, id, ctx.clock.now()));
            pending.push(rows);
            answers.push({ id, slug: rows.post.slug });
            continue;
          }
          // Rows already claimed are written first, so posts are stored in input order.
          await writeNewRows(trxCtx, pending);
          pending = [];
          await atItem(index, () => insertPost(trxCtx, plan, files, id));
          answers.push({ id, slug: await slugOf(trxCtx, id) });
        }
        await writeNewRows(trxCtx, pending);
        return answers;
      });
      return { posts: created };
    } catch (err) {
      await deleteStoredKeys(ctx, storedKeys);
      throw err;
    }
  },
});

async function slugOf(ctx: { db: Kysely<Database> }, id: string): Promise<string> {
  const row = await ctx.db.selectFrom("posts").select("slug").where("id", "=", id).executeTakeFirstOrThrow();
  return row.slug;
}

/**
 * Runs one item's step; an engine error it throws is raised again naming the item: a validation
 * error's fields become `posts[3].title`, any other error's message starts with `posts[3]: `.
 */
async function atItem<T>(index: number, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    if (!isEngineError(err)) throw err;
    const prefix = `posts[${index}]`;
    if (err.code === "VALIDATION_ERROR") {
      const details = err.details as ValidationDetails | undefined;
      const fieldErrors = Object.fromEntries(
        Object.entries(details?.fieldErrors ?? {}).map(([field, messages]) => [
          `${prefix}.${field}`,
          messages,
        ]),
      );
      const formErrors = details?.formErrors ?? [];
      if (formErrors.length > 0) fieldErrors[prefix] = formErrors;
      throw validationError(`${prefix}: ${err.message}`, { formErrors: [], fieldErrors });
    }
    throw new EngineError(err.code, `${prefix}: ${err.message}`, err.details);
  }
}
