import { sql } from "kysely";
import { beforeEach, describe, expect, it } from "vitest";
import { openTestEngine, type TestClock } from "../../test/support.js";
import type { Engine } from "../engine.js";

let engine: Engine;
let clock: TestClock;
const NOW = 1_700_000_000;

beforeEach(async () => {
  ({ engine, clock } = await openTestEngine({ now: NOW }));
});

/** A small deterministic random source (mulberry32), so a failure replays. */
function random(seed: number) {
  let state = seed >>> 0;
  return (n: number) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) % 2 ** 24) % n;
  };
}

/**
 * What the figures must be, computed from the posts themselves (not from the copies the memberships
 * keep): per collection and root language, published Threads and their newest activity.
 */
async function figuresFromPosts(): Promise<string[]> {
  const rows = await sql<{ collection_id: string; language: string; n: number; recent: number }>`
    select m.collection_id, coalesce(r.language, '') as language, count(*) as n, max(r.last_activity_at) as recent
    from collection_threads m join posts r on r.id = m.thread_id
    where r.status = 'published'
    group by m.collection_id, coalesce(r.language, '')`.execute(engine.context.db);
  return rows.rows
    .map((row) => `${row.collection_id}/${row.language}: ${Number(row.n)} @ ${Number(row.recent)}`)
    .sort();
}

async function storedFigures(): Promise<string[]> {
  const rows = await engine.context.db.selectFrom("collection_figures").selectAll().execute();
  return rows
    .map(
      (row) =>
        `${row.collection_id}/${row.language}: ${Number(row.thread_count)} @ ${Number(row.recent_activity_at)}`,
    )
    .sort();
}

describe("collection figures", () => {
  it("stay equal to what the posts say through a random mix of post and membership writes", async () => {
    const pick = random(7);
    const collections: string[] = [];
    for (let i = 0; i < 4; i++)
      collections.push((await engine.collections.create({ slug: `c${i}`, title: `C${i}` })).id);
    const roots: string[] = [];
    const replies: string[] = [];
    const someCollections = () => collections.filter(() => pick(3) === 0);
    const languages = ["en", "fr", "de"];
    let mostFigures = 0;
    for (let step = 0; step < 160; step++) {
      clock.advance(10);
      const root = roots[pick(Math.max(roots.length, 1))];
      const action = roots.length < 3 ? 0 : pick(11);
      try {
        switch (action) {
          case 0: {
            const created = await engine.posts.create({
              format: "note",
              bodyMarkdown: `post ${step}`,
              status: pick(4) === 0 ? "draft" : "published",
              language: languages[pick(3)],
              collectionIds: someCollections(),
            });
            roots.push(created.id);
            break;
          }
          case 1:
          case 2:
            if (root) {
              const reply = await engine.posts.create({
                format: "note",
                bodyMarkdown: `reply ${step}`,
                replyToId: root,
                quietReply: pick(3) === 0,
                status: pick(5) === 0 ? "draft" : undefined,
              });
              replies.push(reply.id);
            }
            break;
          case 3:
            if (root) await engine.posts.update({ id: root, status: pick(2) === 0 ? "draft" : "published" });
            break;
          case 4:
            if (root) await engine.posts.update({ id: root, language: languages[pick(3)] });
            break;
          case 5: {
            const target = pick(2) === 0 ? root : replies[pick(Math.max(replies.length, 1))];
            if (target) await engine.posts.update({ id: target, collectionIds: someCollections() });
            break;
          }
          case 6: {
            const target = pick(2) === 0 ? root : replies[pick(Math.max(replies.length, 1))];
            if (target) await engine.posts.delete({ id: target });
            break;
          }
          case 7:
            if (root)
              await engine.collections.addThread({ id: collections[pick(4)] as string, threadId: root });
            break;
          case 8:
            if (root)
              await engine.collections.removeThread({ id: collections[pick(4)] as string, threadId: root });
            break;
          case 9: {
            const reply = replies[pick(Math.max(replies.length, 1))];
            if (reply)
              await engine.posts.update({ id: reply, status: pick(2) === 0 ? "draft" : "published" });
            break;
          }
          case 10:
            if (pick(8) === 0) {
              const doomed = collections.splice(pick(collections.length), 1)[0];
              if (doomed) await engine.collections.delete({ id: doomed });
              collections.push((await engine.collections.create({ slug: `n${step}`, title: `N${step}` })).id);
            }
            break;
        }
      } catch (err) {
        // A post deleted earlier in the walk is 404; anything else is a failure.
        if ((err as { code?: string }).code !== "NOT_FOUND") throw err;
      }
      const stored = await storedFigures();
      expect(stored, `after step ${step} (action ${action})`).toEqual(await figuresFromPosts());
      mostFigures = Math.max(mostFigures, stored.length);
    }
    // The walk did exercise the figures: several collections and languages at once.
    expect(mostFigures).toBeGreaterThan(4);
  });
});
