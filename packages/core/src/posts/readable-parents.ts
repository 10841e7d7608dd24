import type { Kysely } from "kysely";
import { compiled } from "../db/compiled.js";
import type { Database } from "../db/schema.js";
import type { PostRow } from "./post-query.js";

/**
 * The reading view's `replyToId`: a reply whose parent a reader may not see (a draft reply) names
 * its nearest published ancestor instead, as if the unpublished replies in between were not there
 * (the way deleting a reply moves its replies up to its parent), so no reading surface reveals a
 * draft's ID. Rows of readable Threads only (their root is published); completed in place. A
 * query runs only when some row answers a reply rather than the root: the drafts of those Threads.
 * @see spec § States (visibility read rules), docs/threads.md § Replies
 */
export async function withReadableParents<Row extends PostRow>(
  db: Kysely<Database>,
  rows: Row[],
): Promise<Row[]> {
  const nested = rows.filter((row) => row.reply_to_id !== null && row.reply_to_id !== row.thread_id);
  if (nested.length === 0) return rows;
  const drafts = await draftsOf.execute(db, { threadIds: [...new Set(nested.map((row) => row.thread_id))] });
  const parentOf = new Map(drafts.map((draft) => [draft.id, draft.reply_to_id]));
  for (const row of nested) {
    let parent = row.reply_to_id;
    for (let steps = 0; parent !== null && parentOf.has(parent) && steps <= parentOf.size; steps++) {
      parent = parentOf.get(parent) ?? null;
    }
    row.reply_to_id = parent;
  }
  return rows;
}

/** The draft posts of some Threads (their IDs and parents); compiled once (db/compiled.ts). */
const draftsOf = compiled<{ threadIds: string[] }>()((db, p) =>
  db
    .selectFrom("posts")
    .select(["id", "reply_to_id"])
    .where("thread_id", "in", p.list("threadIds"))
    .where("status", "=", "draft"),
);
