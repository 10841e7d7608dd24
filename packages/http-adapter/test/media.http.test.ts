import { describe, expect, it } from "vitest";
import { expectError } from "./helpers.js";
import {
  createFsMediaSite,
  formBody,
  type MediaSite,
  mp4File,
  pdfFile,
  pngFile,
} from "./uploads-fixtures.js";

let site: MediaSite;

/** One-shot uploads, a second apart so `createdAt` orders them. */
async function uploadMedia(kind: "image" | "video" | "document" = "image", name = "f") {
  const file =
    kind === "image"
      ? { filename: `${name}.png`, type: "image/png", data: pngFile(20, 10) }
      : kind === "video"
        ? { filename: `${name}.mp4`, type: "video/mp4", data: mp4File() }
        : { filename: `${name}.pdf`, type: "application/pdf", data: pdfFile() };
  const { body, contentType } = formBody([{ name: "file", ...file }]);
  const response = await site.send("POST", "/api/upload", body, { "content-type": contentType });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  site.clock.advance(1);
  return response.body as { id: string; url: string; postId: string | null; mediaKind: string };
}

async function mediaKindsOf(postId: string): Promise<number> {
  const row = await site.engine.context.db
    .selectFrom("posts")
    .select("media_kinds")
    .where("id", "=", postId)
    .executeTakeFirstOrThrow();
  return Number(row.media_kinds);
}

describe("GET /api/media", () => {
  it("lists newest first with keyset cursors, filters by mimePrefix, clamps limit", async () => {
    site = await createFsMediaSite();
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await uploadMedia(i % 2 === 0 ? "image" : "document", `m${i}`));
    const all = await site.call("GET", "/api/media");
    expect(all.body.media.map((m: { id: string }) => m.id)).toEqual(made.map((m) => m.id).reverse());
    expect(all.body.nextCursor).toBeNull();

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { media: { id: string }[]; nextCursor: string | null } } = await site.call(
        "GET",
        `/api/media?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      );
      expect(page.body.media.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.media.map((m) => m.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(made.map((m) => m.id).reverse());

    const images = await site.call("GET", "/api/media?mimePrefix=image/");
    expect(images.body.media.map((m: { mimeType: string }) => m.mimeType)).toEqual([
      "image/png",
      "image/png",
      "image/png",
    ]);
    expect((await site.call("GET", "/api/media?mimePrefix=IMAGE%2F&limit=1")).body.media).toHaveLength(1);
    expect((await site.call("GET", "/api/media?mimePrefix=video/")).body.media).toEqual([]);
    expect((await site.call("GET", "/api/media?limit=0")).body.media).toHaveLength(1);
    expect((await site.call("GET", "/api/media?limit=999")).body.media).toHaveLength(5);
  });

  it("answers 400 for unreadable cursors, IDs as cursors, and unreadable limits", async () => {
    site = await createFsMediaSite();
    const media = await uploadMedia();
    for (const query of [
      `cursor=${media.id}`,
      "cursor=%25%25",
      "cursor=eyJvIjoicG9zdHMucHVibGlzaGVkIiwiayI6WzEsImEiXX0",
      "limit=ten",
    ]) {
      const response = await site.call("GET", `/api/media?${query}`);
      expectError(response, 400, "VALIDATION_ERROR", query);
    }
  });

  it("includes text attachments as `text` records, and postId follows attachment", async () => {
    site = await createFsMediaSite();
    const image = await uploadMedia();
    const post = await site.call("POST", "/api/posts", {
      format: "note",
      bodyMarkdown: "Hi",
      attachments: [
        { type: "text", content: "# Notes\n\nSome *text*", summary: "Notes" },
        { type: "media", mediaId: image.id },
      ],
    });
    expect(post.status).toBe(201);
    const list = (await site.call("GET", "/api/media")).body.media;
    const text = list.find((m: { type: string }) => m.type === "text");
    expect(text).toEqual({
      id: expect.stringMatching(/^med_/),
      postId: post.body.id,
      type: "text",
      mediaKind: "text",
      mimeType: "text/markdown",
      originalName: expect.stringMatching(/\.md$/),
      size: 20,
      width: null,
      height: null,
      durationSeconds: null,
      alt: null,
      blurhash: null,
      waveform: null,
      summary: "Notes",
      chars: 20,
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
      url: expect.stringMatching(/^\/media\/attachments\/med_.*\.md$/),
      contentFormat: "markdown",
      contentUrl: `/api/attachments/${text.id}/content`,
    });
    expect(list.find((m: { id: string }) => m.id === image.id).postId).toBe(post.body.id);
    expect((await site.call("GET", "/api/media?mimePrefix=text/")).body.media).toHaveLength(1);
  });
});

describe("GET, PUT and DELETE /api/media/:id", () => {
  it("reads one record; 404 unknown, 400 malformed", async () => {
    site = await createFsMediaSite();
    const media = await uploadMedia();
    expect((await site.call("GET", `/api/media/${media.id}`)).body.id).toBe(media.id);
    expect((await site.call("GET", "/api/media/med_01h2xcejqtf2nbrexx3vqjhp41")).status).toBe(404);
    expect((await site.call("GET", "/api/media/pst_01h2xcejqtf2nbrexx3vqjhp41")).status).toBe(400);
  });

  it("sets alt trimmed, clears it with empty text or null, refuses more than 500 characters", async () => {
    site = await createFsMediaSite();
    const media = await uploadMedia();
    site.clock.advance(30);
    const set = await site.call("PUT", `/api/media/${media.id}`, { alt: "  A dog  " });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ id: media.id, alt: "A dog" });
    expect(set.body.updatedAt).toBeGreaterThan(set.body.createdAt);
    expect((await site.call("PUT", `/api/media/${media.id}`, { alt: "   " })).body.alt).toBeNull();
    await site.call("PUT", `/api/media/${media.id}`, { alt: "x" });
    expect((await site.call("PUT", `/api/media/${media.id}`, { alt: null })).body.alt).toBeNull();
    expect((await site.call("PUT", `/api/media/${media.id}`, { alt: "a".repeat(500) })).status).toBe(200);
    expect((await site.call("PUT", `/api/media/${media.id}`, { alt: "a".repeat(501) })).status).toBe(400);
    expect((await site.call("PUT", `/api/media/${media.id}`, { alt: 5 })).status).toBe(400);
    expect((await site.call("PUT", "/api/media/med_01h2xcejqtf2nbrexx3vqjhp41", { alt: "x" })).status).toBe(
      404,
    );
    // 500 after trimming on every path that takes alt (a post's attachment and the upload form
    // counted the spaces and refused this).
    const padded = ` ${"a".repeat(500)} `;
    expect((await site.call("PUT", `/api/media/${media.id}`, { alt: padded })).body.alt).toHaveLength(500);
    const attached = await site.call("POST", "/api/posts", {
      format: "note",
      bodyMarkdown: "x",
      attachments: [{ type: "media", mediaId: media.id, alt: padded }],
    });
    expect(attached.status, JSON.stringify(attached.body)).toBe(201);
    expect(attached.body.attachments[0].alt).toBe("a".repeat(500));
    const form = formBody([
      { name: "file", filename: "g.png", type: "image/png", data: pngFile(2, 2) },
      { name: "alt", value: padded },
    ]);
    const uploaded = await site.send("POST", "/api/upload", form.body, { "content-type": form.contentType });
    expect(uploaded.status, JSON.stringify(uploaded.body)).toBe(201);
    expect(uploaded.body.alt).toBe("a".repeat(500));
  });

  it("deletes the record and its objects; an attached item leaves its post", async () => {
    site = await createFsMediaSite();
    const [a, b, c] = [
      await uploadMedia("image", "a"),
      await uploadMedia("video", "b"),
      await uploadMedia("document", "c"),
    ];
    const post = await site.call("POST", "/api/posts", {
      format: "note",
      bodyMarkdown: "Three",
      attachments: [a, b, c].map((m) => ({ type: "media", mediaId: m.id })),
    });
    expect(await mediaKindsOf(post.body.id)).toBe(1 | 2 | 16);
    const before = (await site.storedKeys()).length;
    expect((await site.call("DELETE", `/api/media/${b.id}`)).body).toEqual({ success: true });
    expect((await site.storedKeys()).length).toBe(before - 1);
    expect((await site.download(b.url)).status).toBe(404);
    const read = await site.call("GET", `/api/posts/${post.body.id}`);
    expect(read.body.attachments.map((m: { id: string }) => m.id)).toEqual([a.id, c.id]);
    expect(await mediaKindsOf(post.body.id)).toBe(1 | 16);
    // Positions closed ranks: a later replace keeps a stable order.
    const again = await site.call("PUT", `/api/posts/${post.body.id}`, {
      attachments: [
        { type: "media", mediaId: c.id },
        { type: "media", mediaId: a.id },
      ],
    });
    expect(again.body.attachments.map((m: { id: string }) => m.id)).toEqual([c.id, a.id]);
    expect((await site.call("DELETE", `/api/media/${b.id}`)).status).toBe(404);
  });
});

describe("media attachments on posts", () => {
  it("keeps order, caps at 20, and answers 409 for media attached to another post", async () => {
    site = await createFsMediaSite();
    const items = [];
    for (let i = 0; i < 21; i++) items.push(await uploadMedia("document", `d${i}`));
    const refs = items.map((m) => ({ type: "media", mediaId: m.id }));
    const tooMany = await site.call("POST", "/api/posts", {
      format: "note",
      bodyMarkdown: "x",
      attachments: refs,
    });
    expect(tooMany.status).toBe(400);
    const first = await site.call("POST", "/api/posts", {
      format: "note",
      bodyMarkdown: "x",
      attachments: refs.slice(0, 20).reverse(),
    });
    expect(first.status).toBe(201);
    expect(first.body.attachments.map((m: { id: string }) => m.id)).toEqual(
      items
        .slice(0, 20)
        .map((m) => m.id)
        .reverse(),
    );
    const taken = await site.call("POST", "/api/posts", {
      format: "note",
      bodyMarkdown: "y",
      attachments: [refs[0]],
    });
    expectError(taken, 409, "CONFLICT");
    const other = await site.call("POST", "/api/posts", { format: "note", bodyMarkdown: "z" });
    const stolen = await site.call("PUT", `/api/posts/${other.body.id}`, { attachments: [refs[3]] });
    expect(stolen.status).toBe(409);
    expect((await site.call("GET", `/api/media/${items[3]?.id}`)).body.postId).toBe(first.body.id);
    const unknown = await site.call("POST", "/api/posts", {
      format: "note",
      attachments: [{ type: "media", mediaId: "med_01h2xcejqtf2nbrexx3vqjhp41" }],
    });
    expect(unknown.status).toBe(404);
  });

  it("PUT: omitted keeps, array replaces in order, [] removes all; removed files are deleted", async () => {
    site = await createFsMediaSite();
    const [a, b, c] = [
      await uploadMedia("image", "a"),
      await uploadMedia("image", "b"),
      await uploadMedia("video", "c"),
    ];
    const post = await site.call("POST", "/api/posts", {
      format: "note",
      bodyMarkdown: "x",
      attachments: [
        { type: "media", mediaId: a.id, alt: "Alt A" },
        { type: "media", mediaId: b.id, alt: "Alt B" },
      ],
    });
    const id = post.body.id;
    const kept = await site.call("PUT", `/api/posts/${id}`, { title: "T" });
    expect(kept.body.attachments.map((m: { id: string; alt: string }) => [m.id, m.alt])).toEqual([
      [a.id, "Alt A"],
      [b.id, "Alt B"],
    ]);
    const replaced = await site.call("PUT", `/api/posts/${id}`, {
      attachments: [
        { type: "media", mediaId: c.id },
        { type: "media", mediaId: b.id },
        { type: "media", mediaId: a.id, alt: "" },
      ],
    });
    expect(replaced.body.attachments.map((m: { id: string; alt: string | null }) => [m.id, m.alt])).toEqual([
      [c.id, null],
      [b.id, "Alt B"],
      [a.id, null],
    ]);
    expect(await mediaKindsOf(id)).toBe(1 | 2);
    const dropped = await site.call("PUT", `/api/posts/${id}`, {
      attachments: [{ type: "media", mediaId: b.id }],
    });
    expect(dropped.body.attachments.map((m: { id: string }) => m.id)).toEqual([b.id]);
    expect((await site.call("GET", `/api/media/${a.id}`)).status).toBe(404);
    expect((await site.download(a.url)).status).toBe(404);
    expect((await site.download(c.url)).status).toBe(404);
    expect(await mediaKindsOf(id)).toBe(1);
    const none = await site.call("PUT", `/api/posts/${id}`, { attachments: [] });
    expect(none.body.attachments).toEqual([]);
    expect(await mediaKindsOf(id)).toBe(0);
    expect(await site.storedKeys()).toEqual([]);
  });

  it("deleting a post deletes its attachments' files, replies' included", async () => {
    site = await createFsMediaSite();
    const [a, b] = [await uploadMedia("image", "a"), await uploadMedia("document", "b")];
    const root = await site.call("POST", "/api/posts", {
      format: "note",
      bodyMarkdown: "root",
      attachments: [
        { type: "media", mediaId: a.id },
        { type: "text", content: "Text" },
      ],
    });
    const reply = await site.call("POST", "/api/posts", {
      format: "note",
      bodyMarkdown: "reply",
      replyToId: root.body.id,
      attachments: [{ type: "media", mediaId: b.id }],
    });
    expect(reply.status).toBe(201);
    expect((await site.call("GET", `/api/media/${b.id}`)).body.postId).toBe(reply.body.id);
    expect((await site.storedKeys()).length).toBe(3);
    expect((await site.call("DELETE", `/api/posts/${root.body.id}`)).body).toEqual({ success: true });
    expect(await site.storedKeys()).toEqual([]);
    expect((await site.call("GET", "/api/media")).body.media).toEqual([]);
  });

  it("keeps the Thread list's media filter right as media come and go", async () => {
    site = await createFsMediaSite();
    const [image, video, doc] = [
      await uploadMedia("image"),
      await uploadMedia("video"),
      await uploadMedia("document"),
    ];
    const root = await site.call("POST", "/api/posts", {
      format: "note",
      bodyMarkdown: "Root",
      attachments: [{ type: "media", mediaId: video.id }],
    });
    await site.call("POST", "/api/posts", {
      format: "note",
      bodyMarkdown: "Other",
      attachments: [
        { type: "media", mediaId: image.id },
        { type: "text", content: "Notes" },
      ],
    });
    const ids = async (media: string) =>
      (await site.call("GET", `/api/threads?media=${media}`)).body.threads.map((t: { id: string }) => t.id);
    expect(await ids("video")).toEqual([root.body.id]);
    expect((await ids("image,text")).length).toBe(1);
    expect(await ids("document")).toEqual([]);
    await site.call("PUT", `/api/posts/${root.body.id}`, {
      attachments: [
        { type: "media", mediaId: video.id },
        { type: "media", mediaId: doc.id },
      ],
    });
    expect(await ids("document")).toEqual([root.body.id]);
    await site.call("DELETE", `/api/media/${video.id}`);
    expect(await ids("video")).toEqual([]);
    expect(await ids("document")).toEqual([root.body.id]);
    await site.call("DELETE", `/api/media/${doc.id}`);
    expect(await ids("none")).toContain(root.body.id);
  });

  it("an attachment's view carries the media fields", async () => {
    site = await createFsMediaSite();
    const { body, contentType } = formBody([
      { name: "file", filename: "a.png", type: "image/png", data: pngFile(30, 40) },
      { name: "alt", value: "Alt" },
      { name: "blurhash", value: "B" },
      { name: "summary", value: "S" },
    ]);
    const media = (await site.send("POST", "/api/upload", body, { "content-type": contentType })).body;
    const post = await site.call("POST", "/api/posts", {
      format: "note",
      bodyMarkdown: "x",
      attachments: [{ type: "media", mediaId: media.id }],
    });
    expect(post.body.attachments[0]).toEqual({
      type: "media",
      id: media.id,
      url: media.url,
      previewUrl: media.url,
      posterUrl: null,
      alt: "Alt",
      blurhash: "B",
      width: 30,
      height: 40,
      durationSeconds: null,
      mimeType: "image/png",
      originalName: "a.png",
      size: media.size,
      summary: "S",
      chars: null,
    });
  });
});
