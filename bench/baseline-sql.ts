import { mediaColumns, postColumns } from "./site-data.js";

/**
 * The baseline: the rows of one public Thread list page with folds (default order, `public` only,
 * pinned on top), read by ONE hand-written statement. `cursor` adds the keyset condition of a deep
 * page (which lies past the pinned section). `param(n)` writes the dialect's placeholder.
 *
 * It reads what the engine reads: up to 21 roots (a page and the look-ahead row), the first three
 * and last three published replies of each (numbered by window functions over the Thread index,
 * then read by primary key), and their attachments.
 */
export function baselineSql(options: {
  dialect: "sqlite" | "postgres";
  order: BenchOrder;
  cursor: boolean;
  param: (n: number) => string;
}): string {
  const columns = postColumns.join(", ");
  const root = "reply_to_id is null and status = 'published' and visibility = 'public'";
  const key = sortKey[options.order];
  const order = `order by ${key} desc, id desc limit 21`;
  const after = options.cursor ? `and (${key}, id) < (${options.param(1)}, ${options.param(2)})` : "";
  // SQLite, without statistics, reads the few pinned roots through every root's activity entry
  // unless told the partial index (as the engine tells it: dialect.tableIndexedBy).
  const pinnedIndex = options.dialect === "sqlite" ? "indexed by threads_pinned" : "";
  const page =
    options.order === "published"
      ? `select ${columns}, 1 as seg from posts where ${root} ${after} ${order}`
      : options.cursor
        ? `select ${columns}, 1 as seg from posts where ${root} and pinned_at is null ${after} ${order}`
        : `select * from (select ${columns}, 0 as seg from posts ${pinnedIndex} where ${root} and pinned_at is not null ${order}) as pinned
           union all
           select * from (select ${columns}, 1 as seg from posts where ${root} and pinned_at is null ${order}) as rest`;
  // SQLite (without ANALYZE statistics) knows neither that `roots` and `numbered` are small nor
  // that the Thread index suits the replies; a hand-tuned statement says both.
  const join =
    options.dialect === "sqlite" ? "cross join posts q indexed by posts_thread_status" : "join posts q";
  const byId = options.dialect === "sqlite" ? "cross join posts p" : "join posts p";
  const prefixed = (alias: string) => postColumns.map((column) => `${alias}.${column}`).join(", ");
  const media = mediaColumns.map((column) => `m.${column} as m_${column}`).join(", ");
  return `
    with page as (${page}),
    roots as (select * from page order by seg, ${key} desc, id desc limit 21),
    numbered as (
      select q.id,
        row_number() over (partition by q.thread_id order by q.created_at, q.id) as rn,
        count(*) over (partition by q.thread_id) as n
      from roots r ${join} on q.thread_id = r.id
      where q.status = 'published' and q.id <> q.thread_id
    ),
    fold as (select ${prefixed("p")} from numbered f ${byId} on p.id = f.id where f.rn <= 3 or f.rn > f.n - 3),
    shown as (select ${columns} from roots union all select ${columns} from fold)
    select shown.*, ${media} from shown left join media m on m.post_id = shown.id`;
}

/** The public list orders the benchmark times: the default (`activity`) and `published`. */
export type BenchOrder = "activity" | "published";

const sortKey: Record<BenchOrder, string> = { activity: "last_activity_at", published: "published_at" };

/** The cursor order name of a deep page (past the pinned section). */
export const cursorOrder: Record<BenchOrder, string> = {
  activity: "threads.activity",
  published: "threads.published",
};

/**
 * Keyset position of the root at a given offset of an order (past the pinned section of
 * `activity`). Only the benchmark uses OFFSET, once, to pick a deep page.
 */
export function deepPositionSql(order: BenchOrder, param: string): string {
  const pinned = order === "activity" ? "and pinned_at is null" : "";
  return `select ${sortKey[order]} as k, id from posts
    where reply_to_id is null and status = 'published' and visibility = 'public' ${pinned}
    order by ${sortKey[order]} desc, id desc limit 1 offset ${param}`;
}

/** Roots of the public homepage list. */
export const countRootsSql = `select count(*) as n from posts
  where reply_to_id is null and status = 'published' and visibility = 'public'`;
