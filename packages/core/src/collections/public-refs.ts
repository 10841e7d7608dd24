import { oldestAliasesOf } from "../custom-urls/aliases.js";
import { compiled } from "../db/compiled.js";
import type { EngineContext } from "../deps.js";

/** A collection as a public post names it. @see spec § Public post (`collections`) */
export interface PublicCollectionRef {
  id: string;
  slug: string;
  title: string;
  /** Its public path, site prefix included: its oldest custom URL, else `/{slug}`. */
  url: string;
}

/**
 * The collections of many Threads as public refs, by Thread (root) ID, in two queries whatever
 * the number of Threads: the memberships with their collections, then the collections' oldest
 * custom URLs. Each Thread's list is in the collections' creation order; a Thread in none is absent.
 */
export async function publicCollectionRefsOf(
  ctx: Pick<EngineContext, "db" | "settings">,
  threadIds: readonly string[],
): Promise<Map<string, PublicCollectionRef[]>> {
  const byThread = new Map<string, PublicCollectionRef[]>();
  const ids = [...new Set(threadIds)];
  if (ids.length === 0) return byThread;
  const rows = await collectionsOfThreads.execute(ctx.db, { threadIds: ids });
  if (rows.length === 0) return byThread;
  const aliases = await oldestAliasesOf(ctx.db, {
    targetType: "collection",
    targetIds: [...new Set(rows.map((row) => row.id))],
  });
  for (const row of rows) {
    const ref: PublicCollectionRef = {
      id: row.id,
      slug: row.slug,
      title: row.title,
      url: `${ctx.settings.sitePathPrefix}${aliases.get(row.id) ?? `/${row.slug}`}`,
    };
    const list = byThread.get(row.thread_id);
    if (list) list.push(ref);
    else byThread.set(row.thread_id, [ref]);
  }
  return byThread;
}

/** Compiled once (db/compiled.ts), the Threads as one list parameter: every public read of posts asks it. */
const collectionsOfThreads = compiled<{ threadIds: string[] }>()((db, p) =>
  db
    .selectFrom("collection_threads as m")
    .innerJoin("collections as c", "c.id", "m.collection_id")
    .select(["m.thread_id", "c.id", "c.slug", "c.title"])
    .where("m.thread_id", "in", p.list("threadIds"))
    .orderBy("c.created_at")
    .orderBy("c.id"),
);
