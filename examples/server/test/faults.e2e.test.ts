import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  closeFd,
  filesUnder,
  holdWrites,
  openFifoWriter,
  openSiteEngine,
  sizeOf,
  streamingRequest,
  waitFor,
} from "./support/faults.js";
import { createTestSite, type ServerProcess, startServerProcess } from "./support/processes.js";

const devToken = "dev-token-for-fault-tests";
const MiB = 1024 * 1024;
/** Above the server's 64 MiB multipart threshold: two parts of 50 MiB and 14 MiB + 1 byte. */
const largeSize = 64 * MiB + 1;
const DAY = 24 * 60 * 60;

type Session = { id: string; transport: { kind: string; url: string; partSize?: number } };
type Part = { partNumber: number; etag: string };

/**
 * The reference server killed with SIGKILL while it receives a relay body and a multipart part,
 * while it completes an upload and while a post with an attachment waits to commit; then started
 * again on the same data. @see docs/media.md § Session states and lifetime, § Cleanup
 */
describe("kill -9 of the reference server mid-upload and mid-transaction", () => {
  let site: Awaited<ReturnType<typeof createTestSite>>;
  let server: ServerProcess;
  const mediaDir = () => path.join(site.dataDir, "media");
  const call = async (method: string, pathname: string, body?: unknown) => {
    const response = await fetch(`${server.url}${pathname}`, {
      method,
      headers: { authorization: `Bearer ${devToken}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  };
  const put = async (pathname: string, bytes: Uint8Array) => {
    const response = await fetch(`${server.url}${pathname}`, {
      method: "PUT",
      headers: { authorization: `Bearer ${devToken}`, "content-type": "application/octet-stream" },
      // A view of a larger buffer (a part of the file): fetch sends exactly its bytes.
      body: bytes as Uint8Array<ArrayBuffer>,
    });
    return { status: response.status, body: await response.text() };
  };
  const init = async (filename: string, size: number): Promise<Session> => {
    const response = await call("POST", "/api/uploads/init", {
      filename,
      contentType: "application/octet-stream",
      size,
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body as Session;
  };
  const sendParts = async (session: Session, file: Buffer): Promise<Part[]> => {
    const partSize = session.transport.partSize as number;
    const parts: Part[] = [];
    for (let n = 1; (n - 1) * partSize < file.byteLength; n++) {
      const sent = await put(
        `${session.transport.url}?partNumber=${n}`,
        file.subarray((n - 1) * partSize, n * partSize),
      );
      expect(sent.status, sent.body).toBe(200);
      parts.push(JSON.parse(sent.body) as Part);
    }
    return parts;
  };
  const sha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
  const downloadSha = async (url: string) =>
    sha(new Uint8Array(await (await fetch(new URL(url, server.url))).arrayBuffer()));

  beforeAll(async () => {
    site = await createTestSite();
    server = await startServerProcess({ ...site.env, DEV_API_TOKEN: devToken });
  });

  afterAll(async () => {
    if (server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill("SIGKILL");
      await server.exited;
    }
    await site.cleanup();
  });

  it("leaves every session in a state the spec allows; retries succeed; cleanup leaves no orphan", async () => {
    const inspect = await openSiteEngine(site.env, () => Math.floor(Date.now() / 1000));
    const { db } = inspect.context;
    const sessionRow = (id: string) =>
      db.selectFrom("upload_sessions").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

    // A multipart upload sent whole, completed while the store cannot read one of its files: the
    // server is stuck inside `complete`, after its claim, before the media record.
    const completed = randomBytes(largeSize);
    const cut = await init("completed.bin", largeSize);
    const cutParts = await sendParts(cut, completed);
    const uploadDir = path.join(
      mediaDir(),
      ".tmp",
      "multipart",
      (await sessionRow(cut.id)).multipart_upload_id as string,
    );
    const partSizeFile = path.join(uploadDir, "part-size");
    await rm(partSizeFile);
    execFileSync("mkfifo", [partSizeFile]);
    const completing = call("POST", `/api/uploads/${cut.id}/complete`, { parts: cutParts }).catch(
      (error) => error,
    );
    let fifo: number | null = null;
    await waitFor("complete to read the store", () => {
      fifo = openFifoWriter(partSizeFile);
      return fifo !== null;
    });

    // A relay body and a multipart part, each half sent.
    const relayFile = randomBytes(6 * MiB);
    const relay = await init("relay.bin", relayFile.byteLength);
    const body = streamingRequest(`${server.url}${relay.transport.url}`, {
      method: "PUT",
      headers: { authorization: `Bearer ${devToken}` },
      length: relayFile.byteLength,
    });
    await body.send(relayFile.subarray(0, 3 * MiB));
    await waitFor("the relay body to reach the disk", async () => {
      const scratch = await filesUnder(path.join(mediaDir(), ".tmp"));
      for (const file of scratch.filter((name) => name.endsWith(".part"))) {
        if ((await sizeOf(path.join(mediaDir(), ".tmp", file))) > 0) return true;
      }
      return false;
    });
    const multipartFile = randomBytes(largeSize);
    const multipart = await init("parts.bin", largeSize);
    const multipartDir = path.join(
      mediaDir(),
      ".tmp",
      "multipart",
      (await sessionRow(multipart.id)).multipart_upload_id as string,
    );
    const part = streamingRequest(`${server.url}${multipart.transport.url}?partNumber=1`, {
      method: "PUT",
      headers: { authorization: `Bearer ${devToken}` },
      length: multipart.transport.partSize as number,
    });
    await part.send(multipartFile.subarray(0, 3 * MiB));
    await waitFor(
      "the part to reach the disk",
      async () => (await sizeOf(path.join(multipartDir, "data"))) > 0,
    );

    // A post whose attachment is stored but whose transaction cannot commit.
    const lock = await holdWrites(site.env, ["posts"]);
    const post = {
      format: "note",
      bodyMarkdown: "Written once",
      attachments: [{ type: "text", content: "# Kept" }],
    };
    const creating = call("POST", "/api/posts", post).catch((error) => error);
    await waitFor(
      "the attachment file",
      async () => (await filesUnder(path.join(mediaDir(), "attachments"))).length > 0,
    );

    server.child.kill("SIGKILL");
    await server.exited;
    await lock.release();
    if (fifo !== null) closeFd(fifo);
    await Promise.all([completing, body.answer, part.answer, creating]);

    // After the crash: sessions are open, or completing under a claim that will lapse — never
    // `completed` without their media record; the post never half-exists.
    const sessions = await db.selectFrom("upload_sessions").select(["id", "state", "media_id"]).execute();
    const mediaIds = new Set((await db.selectFrom("media").select("id").execute()).map((row) => row.id));
    for (const session of sessions) {
      expect(["open", "completing", "completed", "aborted", "expired"], session.id).toContain(session.state);
      if (session.state === "completed")
        expect(mediaIds.has(session.media_id), "completed without its record").toBe(true);
    }
    expect(Object.fromEntries(sessions.map((session) => [session.id, session.state]))).toMatchObject({
      [relay.id]: "open",
      [multipart.id]: "open",
      [cut.id]: "completing",
    });
    expect(await db.selectFrom("posts").select("id").execute()).toEqual([]);

    // Start again: every upload is retried and succeeds.
    await rm(partSizeFile);
    await writeFile(partSizeFile, String(cut.transport.partSize));
    server = await startServerProcess({ ...site.env, DEV_API_TOKEN: devToken });
    expect((await put(relay.transport.url, relayFile)).status).toBe(204);
    const relayMedia = await call("POST", `/api/uploads/${relay.id}/complete`, {});
    expect(relayMedia.status).toBe(201);
    const multipartParts = await sendParts(multipart, multipartFile);
    const multipartMedia = await call("POST", `/api/uploads/${multipart.id}/complete`, {
      parts: multipartParts,
    });
    expect(multipartMedia.status).toBe(201);
    // The dead process's claim lapses within seconds; until then a retry is a 409.
    let cutMedia = await call("POST", `/api/uploads/${cut.id}/complete`, { parts: cutParts });
    const deadline = Date.now() + 30_000;
    while (cutMedia.status === 409 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      cutMedia = await call("POST", `/api/uploads/${cut.id}/complete`, { parts: cutParts });
    }
    expect(cutMedia.status, JSON.stringify(cutMedia.body)).toBe(201);
    expect((await call("POST", "/api/posts", post)).status).toBe(201);
    expect(await downloadSha(relayMedia.body.url)).toBe(sha(relayFile));
    expect(await downloadSha(multipartMedia.body.url)).toBe(sha(multipartFile));
    expect(await downloadSha(cutMedia.body.url)).toBe(sha(completed));

    // Two days on, cleanup leaves exactly the records' files and no session or part rows.
    server.child.kill("SIGTERM");
    await server.exited;
    await inspect.close();
    const later = await openSiteEngine(site.env, () => Math.floor(Date.now() / 1000) + 2 * DAY);
    try {
      const result = await later.cleanupExpiredUploads();
      // The relay body's temp file and the uncommitted post's attachment.
      expect(result.swept).toBe(2);
      const rows = await later.context.db
        .selectFrom("media")
        .select(["storage_key", "poster_key", "preview_key"])
        .execute();
      const owned = rows.flatMap((row) => [row.storage_key, row.poster_key, row.preview_key]);
      expect(await filesUnder(mediaDir())).toEqual(owned.filter((key) => key !== null).sort());
      expect(await later.context.db.selectFrom("upload_sessions").select("id").execute()).toEqual([]);
      expect(await later.context.db.selectFrom("upload_parts").select("session_id").execute()).toEqual([]);
      expect(await later.context.db.selectFrom("posts").select("id").execute()).toHaveLength(1);
    } finally {
      await later.close();
    }
  }, 120_000);
});

/** Asserts an error answer in the spec's shape: `{ error, code }` (details only when given). */
function expectErrorShape(response: { status: number; body: unknown }, codes: string[]): void {
  const body = response.body as { error?: unknown; code?: unknown };
  expect(Object.keys(body).sort(), JSON.stringify(body)).toEqual(["code", "error"]);
  expect(typeof body.error).toBe("string");
  expect(codes, JSON.stringify(body)).toContain(body.code);
}

describe.skipIf(process.env.QUIRE_TEST_DATABASE !== "postgres")(
  "a PostgreSQL connection dropped mid-transaction",
  () => {
    let site: Awaited<ReturnType<typeof createTestSite>>;
    let server: ServerProcess;

    beforeAll(async () => {
      site = await createTestSite();
      server = await startServerProcess({ ...site.env, DEV_API_TOKEN: devToken });
    });

    afterAll(async () => {
      if (server.child.exitCode === null && server.child.signalCode === null) {
        server.child.kill("SIGKILL");
        await server.exited;
      }
      await site.cleanup();
    });

    it("answers a 5xx in the spec's shape, writes nothing, and the next request works", async () => {
      const create = async () => {
        const response = await fetch(`${server.url}/api/posts`, {
          method: "POST",
          headers: { authorization: `Bearer ${devToken}`, "content-type": "application/json" },
          body: JSON.stringify({
            format: "note",
            bodyMarkdown: "Dropped",
            attachments: [{ type: "text", content: "# Attached" }],
          }),
        });
        return { status: response.status, body: (await response.json()) as Record<string, unknown> };
      };
      const inspect = await openSiteEngine(site.env, () => Math.floor(Date.now() / 1000));
      const { db } = inspect.context;
      try {
        const lock = await holdWrites(site.env, ["posts"]);
        const answer = create();
        // The server's transaction has begun and waits on the lock: drop its connection.
        let pid: number | undefined;
        await waitFor("the server's transaction to wait", async () => {
          const waiting = await sql<{ pid: number }>`
            select pid from pg_stat_activity
            where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid()`.execute(
            db,
          );
          pid = waiting.rows[0]?.pid;
          return pid !== undefined;
        });
        await sql`select pg_terminate_backend(${pid})`.execute(db);
        await lock.release();
        const dropped = await answer;
        expect(dropped.status).toBeGreaterThanOrEqual(500);
        expectErrorShape(dropped, ["INTERNAL_ERROR", "EXTERNAL_SERVICE_ERROR", "SITE_UNAVAILABLE"]);
        expect(await db.selectFrom("posts").select("id").execute()).toEqual([]);
        expect(await db.selectFrom("media").select("id").execute()).toEqual([]);
        expect(await filesUnder(path.join(site.dataDir, "media", "attachments"))).toEqual([]);

        const retried = await create();
        expect(retried.status, JSON.stringify(retried.body)).toBe(201);
        expect(await db.selectFrom("posts").select("id").execute()).toHaveLength(1);
        expect(await filesUnder(path.join(site.dataDir, "media", "attachments"))).toHaveLength(1);
      } finally {
        await inspect.close();
      }
    });
  },
);

describe("local storage whose folder cannot be written", () => {
  let site: Awaited<ReturnType<typeof createTestSite>>;
  let server: ServerProcess;
  const auth = { authorization: `Bearer ${devToken}` };
  const json = async (response: Response) => ({ status: response.status, body: await response.json() });

  beforeAll(async () => {
    site = await createTestSite();
    // Tests run as root, which permissions do not stop: a file stands where the folder should be.
    await writeFile(path.join(site.dataDir, "media"), "not a folder");
    server = await startServerProcess({ ...site.env, DEV_API_TOKEN: devToken });
  });

  afterAll(async () => {
    server.child.kill("SIGKILL");
    await server.exited;
    await site.cleanup();
  });

  it("answers CONFIGURATION_ERROR in the spec's shape and records nothing as stored", async () => {
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array(100)], { type: "application/pdf" }), "report.pdf");
    const oneShot = await json(
      await fetch(`${server.url}/api/upload`, { method: "POST", headers: auth, body: form }),
    );
    expect(oneShot.status).toBe(500);
    expectErrorShape(oneShot, ["CONFIGURATION_ERROR"]);

    const post = await json(
      await fetch(`${server.url}/api/posts`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({
          format: "note",
          bodyMarkdown: "x",
          attachments: [{ type: "text", content: "y" }],
        }),
      }),
    );
    expect(post.status).toBe(500);
    expectErrorShape(post, ["CONFIGURATION_ERROR"]);

    const init = await json(
      await fetch(`${server.url}/api/uploads/init`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({ filename: "a.bin", contentType: "application/octet-stream", size: 10 }),
      }),
    );
    expect(init.status).toBe(200);
    const body = await json(
      await fetch(`${server.url}${init.body.transport.url}`, {
        method: "PUT",
        headers: auth,
        body: new Uint8Array(10),
      }),
    );
    expect(body.status).toBe(500);
    expectErrorShape(body, ["CONFIGURATION_ERROR"]);
    const complete = await json(
      await fetch(`${server.url}/api/uploads/${init.body.id}/complete`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: "{}",
      }),
    );
    expect(complete.status).toBe(400);

    const media = await json(await fetch(`${server.url}/api/media`, { headers: auth }));
    expect(media.body.media).toEqual([]);
    const posts = await json(await fetch(`${server.url}/api/posts`, { headers: auth }));
    expect(posts.body.posts).toEqual([]);
  });
});
