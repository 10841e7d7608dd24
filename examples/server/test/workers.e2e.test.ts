import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestSite, type ServerProcess, startServerProcess } from "./support/processes.js";

const devToken = "dev-token-for-worker-tests";
const roots = 8;
const replies = 96;
/** Requests in flight at once, each on its own connection: the primary hands connections out in turn. */
const clients = 16;

interface Created {
  id: string;
  threadId: string;
  status: string;
  quietReply: boolean;
  publishedAt: number | null;
}

/** Worker processes of the server: children of the primary running the same entry point. */
function workerPids(primary: number): number[] {
  const out = execFileSync("ps", ["--ppid", String(primary), "-o", "pid=,args="], { encoding: "utf8" });
  return out
    .split("\n")
    .filter((line) => line.includes("src/main.ts"))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

/** Runs `tasks` with at most `limit` in flight. */
async function inParallel<T>(tasks: (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < tasks.length) {
        const index = next++;
        results[index] = await (tasks[index] as () => Promise<T>)();
      }
    }),
  );
  return results;
}

describe("WORKERS=2: two server processes on one database", () => {
  let site: Awaited<ReturnType<typeof createTestSite>>;
  let server: ServerProcess;
  const statuses: number[] = [];
  const created: Created[] = [];

  /** A request on a connection of its own (no keep-alive), so consecutive requests reach either worker. */
  const api = (pathname: string, init: RequestInit = {}, signedIn = true) =>
    fetch(`${server.url}${pathname}`, {
      ...init,
      headers: {
        ...(signedIn ? { authorization: `Bearer ${devToken}` } : {}),
        "content-type": "application/json",
        connection: "close",
      },
    });

  const create = async (body: Record<string, unknown>): Promise<Created | undefined> => {
    const response = await api("/api/posts", { method: "POST", body: JSON.stringify(body) });
    statuses.push(response.status);
    if (response.status !== 201) {
      process.stderr.write(`POST /api/posts answered ${response.status}: ${await response.text()}\n`);
      return undefined;
    }
    const post = (await response.json()) as Created;
    created.push(post);
    return post;
  };

  beforeAll(async () => {
    site = await createTestSite();
    server = await startServerProcess({ ...site.env, DEV_API_TOKEN: devToken, WORKERS: "2" });
  }, 60_000);

  afterAll(async () => {
    if (server.child.exitCode === null) {
      server.child.kill("SIGKILL");
      await server.exited;
    }
    await site.cleanup();
  });

  it("runs two worker processes behind one port", () => {
    expect(server.stdout()).toContain("2 worker processes share the port");
    expect(workerPids(server.child.pid as number)).toHaveLength(2);
  });

  it("loses no concurrent create or reply across workers: every 201 is readable and every Thread's figures match a recount", async () => {
    const base = 1_700_000_000;
    const threadRoots = (
      await inParallel(
        Array.from(
          { length: roots },
          (_, i) => () => create({ format: "note", bodyMarkdown: `Root ${i}`, publishedAt: base + i }),
        ),
        clients,
      )
    ).filter((post): post is Created => post !== undefined);
    expect(threadRoots).toHaveLength(roots);

    // Replies to roots and to earlier replies, some quiet, some drafts, with publication times that
    // put the newest activity anywhere in a Thread.
    await inParallel(
      Array.from({ length: replies }, (_, i) => async () => {
        const root = threadRoots[i % roots] as Created;
        const earlier = created.filter((post) => post.threadId === root.id && post.status === "published");
        const parent = i % 3 === 0 ? (earlier[earlier.length - 1] ?? root) : root;
        await create({
          format: "note",
          bodyMarkdown: `Reply ${i}`,
          replyToId: parent.id,
          quietReply: i % 5 === 0,
          ...(i % 7 === 0 ? { status: "draft" } : { publishedAt: base + 1000 + ((i * 7919) % 5000) }),
        });
      }),
      clients,
    );

    // No 409 from a busy database, no 5xx: every write was a 201.
    expect(statuses.filter((status) => status !== 201)).toEqual([]);
    expect(created).toHaveLength(roots + replies);

    // Every post created is there, read back through either worker.
    const reads = await inParallel(
      created.map((post) => async () => (await api(`/api/posts/${post.id}`)).status),
      clients,
    );
    expect(reads.filter((status) => status !== 200)).toEqual([]);

    for (const root of threadRoots) {
      const posts = created.filter((post) => post.threadId === root.id);
      const published = posts.filter((post) => post.status === "published");
      const active = published.filter((post) => !post.quietReply);
      const thread = (await (await api(`/api/threads/${root.id}`)).json()) as {
        postCount: number;
        lastActivityAt: number;
        threadUpdatedAt: number;
      };
      expect(thread.postCount).toBe(published.length);
      expect(thread.lastActivityAt).toBe(Math.max(...active.map((post) => post.publishedAt as number)));
      expect(thread.threadUpdatedAt).toBe(Math.max(...published.map((post) => post.publishedAt as number)));

      // The Thread's own post list (published posts) holds every published post created in it.
      const ids: string[] = [];
      let cursor: string | null = null;
      do {
        const page = (await (
          await api(`/api/threads/${root.id}/posts?limit=100${cursor ? `&cursor=${cursor}` : ""}`)
        ).json()) as { posts?: { id: string }[]; items?: { id: string }[]; nextCursor: string | null };
        ids.push(...(page.posts ?? page.items ?? []).map((post) => post.id));
        cursor = page.nextCursor;
      } while (cursor);
      expect(new Set(ids)).toEqual(new Set(published.map((post) => post.id)));
    }
  }, 120_000);

  it("a post written through one worker is in the next public read from any worker", async () => {
    for (let round = 0; round < 6; round++) {
      const post = await create({
        format: "note",
        bodyMarkdown: `Fresh ${round}`,
        publishedAt: Math.floor(Date.now() / 1000) - 60 + round,
      });
      expect(post).toBeDefined();
      // Four reads on four new connections: at least one lands on the other worker.
      const lists = await Promise.all(
        Array.from({ length: 4 }, async () => {
          const response = await api("/api/public/threads?include=fold", {}, false);
          expect(response.status).toBe(200);
          return ((await response.json()) as { threads: { id: string }[] }).threads.map(
            (thread) => thread.id,
          );
        }),
      );
      for (const ids of lists) expect(ids[0]).toBe(post?.id);
    }
  }, 60_000);

  it("replaces a worker that dies, and stops every worker on SIGTERM", async () => {
    const primary = server.child.pid as number;
    const [first] = workerPids(primary);
    process.kill(first as number, "SIGKILL");
    let pids: number[] = [];
    for (let attempt = 0; attempt < 120; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      pids = workerPids(primary);
      if (pids.length === 2 && !pids.includes(first as number)) break;
    }
    expect(pids).toHaveLength(2);
    expect(pids).not.toContain(first);
    expect(server.stderr()).toContain("worker exited; starting another");
    const health = await api("/healthz");
    expect(health.status).toBe(200);

    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
  }, 60_000);
});
