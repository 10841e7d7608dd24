import type * as z from "zod";
import type { EngineContext } from "../deps.js";
import { defineOperation } from "../operation.js";
import { type KeysetOrder, pageByKeys } from "../pagination/keyset.js";
import { renderEditorDoc } from "../render/index.js";
import { rebuildHtmlInput, rebuildHtmlOutput } from "./maintenance-schemas.js";

type RebuildInput = z.output<typeof rebuildHtmlInput>;
type RebuildAnswer = z.output<typeof rebuildHtmlOutput>;

/** Posts with a body, by ID: the order a rebuild walks. */
const rebuildOrder: KeysetOrder<{ id: string }> = {
  name: "rebuild-html",
  direction: "asc",
  keys: [{ column: "id", type: "string" }],
};

/**
 * Re-renders the stored HTML of one batch of posts from their stored body (the editor document,
 * the source every rendered form comes from), after a change to the renderer. Writes only where
 * the HTML differs, each with a compare-and-swap (`UPDATE … WHERE id = ? AND body = <as read> AND
 * body_html = <as read>`): a post edited between the read and the write keeps its edit and is
 * reported skipped. Never changes `updated_at`, the slug or anything but `body_html`. With
 * `dryRun`, only reports. @see docs/internal-admin.md § Body HTML rebuild
 */
export const rebuildHtml = defineOperation({
  id: "posts.rebuildHtml",
  access: "internal",
  description:
    "Re-renders stored body HTML for one batch of posts, writing only what differs; pass nextCursor back until it is null.",
  hints: { idempotent: true },
  input: rebuildHtmlInput,
  output: rebuildHtmlOutput,
  run: (ctx, input) => rebuildBodyHtml(ctx, input),
});

/** Test seams of {@link rebuildBodyHtml}. */
export interface RebuildSeams {
  /** Runs after a post is read and rendered, before its write: where a test makes a concurrent edit. */
  beforeWrite?: (postId: string) => Promise<void>;
}

/** The rebuild of one batch; `posts.rebuildHtml` runs it. */
export async function rebuildBodyHtml(
  ctx: EngineContext,
  input: RebuildInput,
  seams: RebuildSeams = {},
): Promise<RebuildAnswer> {
  const page = await pageByKeys(
    ctx.db.selectFrom("posts").select(["id", "body", "body_html"]).where("body", "is not", null),
    rebuildOrder,
    input,
  );
  const changedIds: string[] = [];
  const skippedIds: string[] = [];
  let unchanged = 0;
  for (const post of page.rows) {
    const html = renderedHtml(ctx, post.id, post.body as string);
    if (html === null) {
      skippedIds.push(post.id);
      continue;
    }
    if (html === post.body_html) {
      unchanged++;
      continue;
    }
    if (input.dryRun) {
      changedIds.push(post.id);
      continue;
    }
    await seams.beforeWrite?.(post.id);
    const swapped = await swapBodyHtml(ctx, {
      id: post.id,
      body: post.body as string,
      was: post.body_html,
      html,
    });
    (swapped ? changedIds : skippedIds).push(post.id);
  }
  return {
    dryRun: input.dryRun,
    scanned: page.rows.length,
    changed: changedIds.length,
    unchanged,
    skipped: skippedIds.length,
    changedIds,
    skippedIds,
    nextCursor: page.nextCursor,
  };
}

/** The HTML a stored body renders to now; null (logged) when the stored body cannot be read. */
function renderedHtml(ctx: EngineContext, id: string, body: string): string | null {
  try {
    return renderEditorDoc(body).html;
  } catch (err) {
    ctx.logger.warn("posts.rebuildHtml could not render a stored body", { postId: id, error: String(err) });
    return null;
  }
}

/**
 * Writes the new HTML only if the post's body and HTML are still as read; true when it did. One
 * statement decides and writes, so a concurrent edit (which rewrites both) wins on either
 * database without a lock.
 */
async function swapBodyHtml(
  ctx: EngineContext,
  input: { id: string; body: string; was: string | null; html: string },
): Promise<boolean> {
  const result = await ctx.db
    .updateTable("posts")
    .set({ body_html: input.html })
    .where("id", "=", input.id)
    .where("body", "=", input.body)
    .where((eb) => (input.was === null ? eb("body_html", "is", null) : eb("body_html", "=", input.was)))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
