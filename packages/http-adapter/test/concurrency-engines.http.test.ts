import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { Engine } from "@quire/core";
import { createTestEngine, testDatabaseKind } from "@quire/core/testing";
import { expect, it, onTestFinished } from "vitest";
import { createHandler } from "../src/index.js";
import { checkInvariants, statusCounts } from "./concurrency-invariants.js";
import { assertErrorShape, type TestResponse } from "./helpers.js";
import { openTwoEngines, twoEnginesNow } from "./two-engines.js";
import { formBody, pngFile } from "./uploads-fixtures.js";

/**
 * Two engines, each with its own handler and its own connections, on one database: one SQLite
 * file or one PostgreSQL schema. First in one process, with requests alternating between them;
 * then, on SQLite, with writers in two other processes (concurrency-writer.ts), as servers sharing
 * a file would run. Afterwards the invariants of concurrency-invariants.ts must hold.
 * @see docs/reliability.md
 */
const t0 = twoEnginesNow;
type Answer = { status: number; id: string | null; code: string | null };
type Send = (
  method: string,
  url: string,
  body?: unknown,
  headers?: Record<string, string>,
) => Promise<TestResponse>;

async function twoSites(): Promise<{ sites: [Send, Send]; db: Parameters<typeof checkInvariants>[0] }> {
  const { first, second } = await openTwoEngines();
  const sender = (engine: Engine): Send => {
    const handler = createHandler(engine, { devApiToken: "dev-token", clientAddress: () => "127.0.0.1" });
    return async (method, url, body, headers = {}) => {
      const raw = body instanceof Uint8Array || body === undefined ? body : JSON.stringify(body);
      const response = await handler(
        new Request(`http://localhost${url}`, {
          method,
          headers: { authorization: "Bearer dev-token", ...headers },
          ...(raw === undefined ? {} : { body: raw as BodyInit }),
        }),
      );
      const text = await response.text();
      const parsed = text === "" ? null : JSON.parse(text);
      assertErrorShape(response.status, parsed);
      return { status: response.status, headers: response.headers, body: parsed };
    };
  };
  return { sites: [sender(first), sender(second)], db: first.context.db };
}

it("two engines on one database keep figures, addresses, attachments and uploads consistent", async () => {
  const { sites, db } = await twoSites();
  const [a, b] = sites;
  const via = (i: number) => (i % 2 === 0 ? a : b);
  const root = (await a("POST", "/api/posts", { format: "note", title: "Shared" })).body;
  const image = pngFile(4, 4);
  const media: string[] = [];
  for (let i = 0; i < 3; i++) {
    const { body, contentType } = formBody([
      { name: "file", filename: `${i}.png`, type: "image/png", data: image },
    ]);
    media.push((await via(i)("POST", "/api/upload", body, { "content-type": contentType })).body.id);
  }
  const init = await b("POST", "/api/uploads/init", {
    filename: "s.png",
    contentType: "image/png",
    size: image.byteLength,
  });
  expect((await a("PUT", init.body.transport.url, image)).status).toBe(204);

  const replies = Array.from(
    { length: 30 },
    (_, i) => () =>
      via(i)("POST", "/api/posts", {
        format: "note",
        replyToId: root.id,
        bodyMarkdown: `reply ${i}`,
        quietReply: i % 3 === 0,
        publishedAt: t0 + 100 + ((i * 7) % 30),
      }),
  );
  const sameTitle = Array.from(
    { length: 16 },
    (_, i) => () => via(i)("POST", "/api/posts", { format: "note", title: "Twice told" }),
  );
  const claims = media.flatMap((mediaId) =>
    Array.from(
      { length: 4 },
      (_, i) => () =>
        via(i)("POST", "/api/posts", {
          format: "note",
          bodyMarkdown: "x",
          attachments: [{ type: "media", mediaId }],
        }),
    ),
  );
  const completions = Array.from(
    { length: 4 },
    (_, i) => () => via(i)("POST", `/api/uploads/${init.body.id}/complete`, {}),
  );
  const tasks = [...replies, ...sameTitle, ...claims, ...completions];
  const answers = await Promise.all(tasks.map((task) => task()));

  const [replyAnswers, titleAnswers, claimAnswers, completeAnswers] = [
    answers.slice(0, 30),
    answers.slice(30, 46),
    answers.slice(46, 58),
    answers.slice(58),
  ];
  expect.soft(statusCounts(replyAnswers)).toEqual({ 201: 30 });
  expect.soft(statusCounts(titleAnswers)).toEqual({ 201: 16 });
  expect.soft(new Set(titleAnswers.map((answer) => answer.body.slug)).size).toBe(16);
  expect.soft(statusCounts(claimAnswers)).toEqual({ 201: 3, 409: 9 });
  expect.soft(statusCounts(completeAnswers)).toEqual({ 201: 1, 409: 3 });
  const acknowledged = [...replyAnswers, ...titleAnswers, ...claimAnswers].filter(
    (answer) => answer.status === 201,
  );
  for (const answer of acknowledged) {
    expect.soft((await b("GET", `/api/posts/${answer.body.id}`)).status).toBe(200);
  }
  expect.soft((await a("GET", `/api/posts/${root.id}`)).body.threadPostCount).toBe(31);
  await checkInvariants(db);
});

// SQLite only: there, other processes contend for the file's lock in ways one process cannot show
// (see db/sqlite-dialect.ts). On PostgreSQL two engines in one process already use two pools.
it.runIf(testDatabaseKind() === "sqlite")(
  "engines in other processes write to the same database at the same time",
  async () => {
    const first = await createTestEngine({ now: t0, poolSize: 8 });
    onTestFinished(first.cleanup);
    const handler = createHandler(first.engine, {
      devApiToken: "dev-token",
      clientAddress: () => "127.0.0.1",
    });
    const post = async (body: object): Promise<Answer> => {
      const response = await handler(
        new Request("http://localhost/api/posts", {
          method: "POST",
          headers: { authorization: "Bearer dev-token" },
          body: JSON.stringify({ format: "note", ...body }),
        }),
      );
      const answer = await response.json();
      return { status: response.status, id: answer.id ?? null, code: answer.code ?? null };
    };
    const root = await post({ title: "Shared" });
    // IDs of each process far apart, with different low digits (the generated-slug fallback uses them).
    const others = [2 ** 40 + 7_777, 2 ** 41 + 3_333].map((idStart) =>
      writerProcess({ ...first.location, rootId: root.id, replies: 20, creates: 8, idStart, now: t0 }),
    );
    await Promise.all(others.map((other) => other.ready));
    for (const other of others) other.go();
    const here = Promise.all([
      ...Array.from({ length: 20 }, (_, i) =>
        post({ replyToId: root.id, bodyMarkdown: `near ${i}`, publishedAt: t0 + 100 + i }),
      ),
      ...Array.from({ length: 8 }, () => post({ title: "Twice told" })),
    ]);
    const answers = (await Promise.all([here, ...others.map((other) => other.done)])).flat();

    expect
      .soft(statusCounts(answers), JSON.stringify(answers.filter((answer) => answer.status !== 201)))
      .toEqual({ 201: 84 });
    expect.soft((await post({ title: "After" })).status).toBe(201);
    const stored = await first.engine.posts.get({ id: root.id as string });
    expect.soft(stored.threadPostCount).toBe(61);
    await checkInvariants(first.engine.context.db);
  },
);

/**
 * Starts concurrency-writer.ts in a new process; it opens the database and says it is ready, then
 * writes on `go()`. `done` is its answers.
 */
function writerProcess(input: object): { ready: Promise<void>; go: () => void; done: Promise<Answer[]> } {
  const writer = fileURLToPath(new URL("./concurrency-writer.ts", import.meta.url));
  const child = spawn(
    process.execPath,
    ["--conditions=source", "--import", "tsx", writer, JSON.stringify(input)],
    {
      stdio: ["pipe", "pipe", "inherit"],
    },
  );
  onTestFinished(() => {
    child.kill();
  });
  let out = "";
  child.stdout.setEncoding("utf8");
  const ready = new Promise<void>((resolve) => {
    child.stdout.on("data", (chunk: string) => {
      out += chunk;
      if (out.startsWith("ready\n")) resolve();
    });
  });
  const done = new Promise<Answer[]>((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0
        ? resolve(JSON.parse(out.slice("ready\n".length)))
        : reject(new Error(`writer exited with ${code}`)),
    );
  });
  return { ready, go: () => child.stdin.write("go\n"), done };
}

it("a write whose record another engine deletes at once answers 200 or 404, never 500", async () => {
  // Each write's answer was read after its commit, where the other engine's delete could come
  // first: "vanished" (nav items, collections) or "no result" (media) answered 500.
  const { sites } = await twoSites();
  const [a, b] = sites;
  const image = pngFile(4, 4);
  const cases: [string, () => Promise<string>, (id: string) => Promise<TestResponse>, string][] = [
    [
      "nav move",
      async () => (await a("POST", "/api/nav-items", { type: "link", label: "L", url: "/l" })).body.id,
      (id) => a("PUT", `/api/nav-items/${id}/move`, {}),
      "/api/nav-items/",
    ],
    [
      "nav update",
      async () => (await a("POST", "/api/nav-items", { type: "link", label: "L", url: "/l" })).body.id,
      (id) => a("PUT", `/api/nav-items/${id}`, { label: "M" }),
      "/api/nav-items/",
    ],
    [
      "collection update",
      async () =>
        (await a("POST", "/api/collections", { slug: `c${Math.random()}`.replace(".", ""), title: "C" })).body
          .id,
      (id) => a("PUT", `/api/collections/${id}`, { title: "D" }),
      "/api/collections/",
    ],
    [
      "directory item update",
      async () =>
        (await a("POST", "/api/collections/directory-items", { type: "link", label: "L", url: "/l" })).body
          .id,
      (id) => a("PUT", `/api/collections/directory-items/${id}`, { label: "M" }),
      "/api/collections/directory-items/",
    ],
    [
      "media update",
      async () => {
        const { body, contentType } = formBody([
          { name: "file", filename: "m.png", type: "image/png", data: image },
        ]);
        return (await a("POST", "/api/upload", body, { "content-type": contentType })).body.id;
      },
      (id) => a("PUT", `/api/media/${id}`, { alt: "A" }),
      "/api/media/",
    ],
  ];
  const problems: string[] = [];
  for (const [name, make, write, base] of cases) {
    for (let round = 0; round < 25; round++) {
      const id = await make();
      const [written, deleted] = await Promise.all([write(id), b("DELETE", `${base}${id}`)]);
      // The write answers the record it wrote, or finds it gone; the delete takes it, or finds it gone.
      const wrote = written.status === 200 ? written.body.id === id : written.body?.code === "NOT_FOUND";
      const took =
        deleted.status === 200 ? deleted.body.success === true : deleted.body?.code === "NOT_FOUND";
      if (!wrote || !took || ![200, 404].includes(written.status) || ![200, 404].includes(deleted.status))
        problems.push(`${name}: ${written.status} ${JSON.stringify(written.body)}, delete ${deleted.status}`);
    }
  }
  expect(problems).toEqual([]);
});

it("a post write that commits before another engine's delete answers what it wrote, not 404", async () => {
  // A reply's create and a post's update read their answer after the commit until 2026-11-29,
  // where the other engine's delete of the Thread could come first: the write had happened, yet
  // it answered 404.
  // Which came first shows afterwards in a media item the write attaches: a post's delete takes
  // its attachments, so the item is gone exactly when the write committed before the delete.
  const { sites } = await twoSites();
  const [a, b] = sites;
  const image = pngFile(4, 4);
  const upload = async () => {
    const { body, contentType } = formBody([
      { name: "file", filename: "m.png", type: "image/png", data: image },
    ]);
    return (await a("POST", "/api/upload", body, { "content-type": contentType })).body.id as string;
  };
  const cases: [string, (root: string, mediaId: string) => Promise<TestResponse>][] = [
    [
      "reply create",
      (root, mediaId) =>
        a("POST", "/api/posts", {
          format: "note",
          replyToId: root,
          bodyMarkdown: "r",
          attachments: [{ type: "media", mediaId }],
        }),
    ],
    [
      "update",
      (root, mediaId) => a("PUT", `/api/posts/${root}`, { attachments: [{ type: "media", mediaId }] }),
    ],
  ];
  const problems: string[] = [];
  for (const [name, write] of cases) {
    for (let round = 0; round < 40; round++) {
      const root = (await a("POST", "/api/posts", { format: "note", title: "Doomed" })).body.id as string;
      const mediaId = await upload();
      // The delete waits 0 to 4 turns of the event loop, so that either may come first.
      const later = async () => {
        for (let turn = 0; turn < round % 5; turn++) await new Promise((resolve) => setImmediate(resolve));
        return b("DELETE", `/api/posts/${root}`);
      };
      const [written, deleted] = await Promise.all([write(root, mediaId), later()]);
      const committed = (await a("GET", `/api/media/${mediaId}`)).status === 404;
      const expected = committed ? (name === "update" ? 200 : 201) : 404;
      if (written.status !== expected || deleted.status !== 200)
        problems.push(
          `${name}: ${committed ? "committed" : "refused"}, answered ${written.status} ${JSON.stringify(written.body)}`,
        );
    }
  }
  expect(problems).toEqual([]);
});
