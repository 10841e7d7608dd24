import type { Kysely } from "kysely";
import { compiled } from "../db/compiled.js";
import type { Database } from "../db/schema.js";
import type { MediaRow } from "../files/media-rows.js";

/** The attachments of many posts in one query, grouped by post and in attachment order. */
export async function loadAttachments(
  db: Kysely<Database>,
  postIds: string[],
): Promise<Map<string, MediaRow[]>> {
  const byPost = new Map<string, MediaRow[]>();
  if (postIds.length === 0) return byPost;
  const rows = await attachmentsOf.execute(db, { postIds });
  for (const row of rows) {
    const postId = row.post_id as string;
    const list = byPost.get(postId);
    if (list) list.push(row);
    else byPost.set(postId, [row]);
  }
  return byPost;
}

/** Compiled once (db/compiled.ts): one SQL text for any number of posts. */
const attachmentsOf = compiled<{ postIds: string[] }>()((db, p) =>
  db
    .selectFrom("media")
    .selectAll()
    .where("post_id", "in", p.list("postIds"))
    .orderBy("post_id")
    .orderBy("position"),
);
