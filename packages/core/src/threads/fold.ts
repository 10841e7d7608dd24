import { type ExpressionBuilder, type Kysely, sql } from "kysely";
import { compiled } from "../db/compiled.js";
import type { Database, PostsTable } from "../db/schema.js";
import type { PostRow } from "../posts/post-query.js";
import { asReplyRow, type ReadColumns, replyColumns, type StoredPost } from "./thread-rows.js";

/** How many of the earliest published replies the fold keeps. */
export const leadingCount = 2;
/** How many of the latest published replies the fold keeps. */
export const trailingCount = 3;

/** The replies a fold keeps, as rows. `gap` is the first reply left out (null when none is). */
export interface FoldRows {
  leading: PostRow[];
  hidden: number;
  gap: PostRow | null;
  trailing: PostRow[];
}

/**
 * The folds of a page of Threads in one query. An inner query numbers the published replies of
 * every Thread on the page in Thread order (`row_number()` and `count(*)` over the Thread) from the
 * index `(thread_id, status, created_at, id)` alone; the outer one reads the full rows of the
 * leading replies, the first hidden one (the gap) and the trailing replies by primary key. The
 * cost follows the page's published replies, never the size of the site.
 * @see spec § Fold, docs/threads.md § Fold
 */
export async function loadFolds(
  db: Kysely<Database>,
  roots: PostRow[],
  columns: ReadColumns = "all",
): Promise<Map<string, FoldRows>> {
  const folds = new Map<string, FoldRows>(roots.map((root) => [root.id, emptyFold()]));
  const threadIds = roots.filter((root) => root.thread_reply_count > 0).map((root) => root.id);
  if (threadIds.length === 0) return folds;
  const rows = await foldQueries[columns].execute(db, { threadIds });

  const byThread = new Map<string, NumberedReply[]>();
  for (const row of rows) {
    const list = byThread.get(row.thread_id);
    if (list) list.push(row);
    else byThread.set(row.thread_id, [row]);
  }
  for (const root of roots) {
    const replies = (byThread.get(root.id) ?? []).sort((a, b) => Number(a.rn) - Number(b.rn));
    folds.set(root.id, foldOf(replies, root));
  }
  return folds;
}

/**
 * The fold rows of some Threads: the inner query numbers replies, the outer reads the kept ones
 * (their `columns`, see {@link ReadColumns}). Compiled once (db/compiled.ts): the Thread IDs are
 * one list parameter, so every page runs the same SQL text and the driver prepares it once per
 * connection.
 */
function foldQuery(columns: ReadColumns) {
  return compiled<{ threadIds: string[] }>()((db, p) => {
    const numbered = db
      .selectFrom("posts as q")
      .select((eb) => [
        "q.id",
        sql<number>`row_number() over (partition by ${eb.ref("q.thread_id")} order by ${eb.ref("q.created_at")}, ${eb.ref("q.id")})`.as(
          "rn",
        ),
        sql<number>`count(*) over (partition by ${eb.ref("q.thread_id")})`.as("n"),
      ])
      .where("q.thread_id", "in", p.list("threadIds"))
      .where("q.status", "=", "published")
      // Not the root: in the index, unlike `reply_to_id`.
      .whereRef("q.id", "<>", "q.thread_id")
      .as("f");
    const from = db.selectFrom("posts as p").innerJoin(numbered, "f.id", "p.id");
    const all = from.selectAll("p");
    const listed = replyColumns(columns);
    // Typed as every column: a reading row lacks the others, and only the reading view reads it.
    const selected = listed
      ? (from.select(listed.map((column) => `p.${column}` as const)) as unknown as typeof all)
      : all;
    return selected
      .select(["f.rn", "f.n"])
      .select((eb) => parentDraft(eb).as("parent_draft"))
      .where((eb) =>
        eb.or([
          eb("f.rn", "<=", leadingCount + 1),
          eb("f.rn", ">", sql<number>`${eb.ref("f.n")} - ${trailingCount}`),
        ]),
      );
  });
}

/** The fold statement of each column set. */
const foldQueries = {
  all: foldQuery("all"),
  reading: foldQuery("reading"),
  readingMarkdown: foldQuery("readingMarkdown"),
} satisfies Record<ReadColumns, unknown>;

/**
 * 1 when the reply answers a draft reply (whose ID the reading view must not show), else 0: only
 * such replies need the readable-parents read (posts/readable-parents.ts). One probe by primary
 * key, and only for replies to replies.
 */
function parentDraft(eb: ExpressionBuilder<Database & { p: PostsTable }, "p">) {
  return eb
    .case()
    .when(
      eb.and([
        eb("p.reply_to_id", "<>", eb.ref("p.thread_id")),
        eb.exists(
          eb
            .selectFrom("posts as d")
            .select("d.id")
            .whereRef("d.id", "=", "p.reply_to_id")
            .where("d.status", "=", "draft"),
        ),
      ]),
    )
    .then(sql.lit(1))
    .else(sql.lit(0))
    .end();
}

/** A reply with its place among the Thread's published replies (`rn`, from 1) and their count (`n`). */
type NumberedReply = StoredPost & { rn: number; n: number };

/** Splits a Thread's numbered replies (in order) into the fold; all are shown while there are few. */
function foldOf(replies: NumberedReply[], root: PostRow): FoldRows {
  const count = Number(replies[0]?.n ?? 0);
  const shown = leadingCount + trailingCount;
  if (count <= shown) {
    return {
      leading: replyRows(replies.slice(0, leadingCount), root),
      hidden: 0,
      gap: null,
      trailing: replyRows(replies.slice(leadingCount), root),
    };
  }
  const gap = replies.find((reply) => Number(reply.rn) === leadingCount + 1);
  return {
    leading: replyRows(
      replies.filter((reply) => Number(reply.rn) <= leadingCount),
      root,
    ),
    hidden: count - shown,
    gap: gap ? asReplyRow(gap, root) : null,
    trailing: replyRows(
      replies.filter((reply) => Number(reply.rn) > count - trailingCount),
      root,
    ),
  };
}

/**
 * Reply rows completed with their Thread's values. A module function, not a closure made in
 * foldOf for every root (docs/architecture.md § Hot paths in JavaScript).
 */
function replyRows(list: NumberedReply[], root: PostRow): PostRow[] {
  return list.map((row) => asReplyRow(row, root));
}

function emptyFold(): FoldRows {
  return { leading: [], hidden: 0, gap: null, trailing: [] };
}
