import { deflateSync } from "node:zlib";
import type { Engine } from "@quire/core";

/** A real, decodable PNG of one colour (browsers must be able to draw it). */
export function pngImage(width: number, height: number): Uint8Array {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (bytes: Buffer) => {
    let c = 0xffffffff;
    for (const byte of bytes) c = (crcTable[(c ^ byte) & 255] as number) ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const out = Buffer.alloc(body.length + 8);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc(body), body.length + 4);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3, 0x4a)]);
  const pixels = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(pixels)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/** What {@link seedSite} made, for the tests to look for. */
export interface SeededSite {
  /** The Thread with many replies (its fold hides some), in the collection, with the image. */
  busy: { id: string; slug: string; title: string };
  /** A reply of `busy` the fold leaves out. */
  hiddenReply: { id: string; slug: string };
  /** A post that lives at a custom URL (its slug redirects there). */
  moved: { id: string; slug: string; path: string; title: string };
  collection: { slug: string; title: string };
  /** A redirect custom URL and where it goes. */
  redirect: { path: string; to: string };
  image: { url: string; bytes: Uint8Array };
  /** Every root's title, newest first. */
  rootTitles: string[];
}

/**
 * A small site with something of everything a build writes: more Threads than one page holds,
 * replies (more than a fold shows), a collection, an image attachment, a post at a custom URL and
 * a redirect. The engine needs a storage for the image.
 */
export async function seedSite(
  engine: Engine,
  advance: (seconds: number) => void = () => {},
): Promise<SeededSite> {
  const create = (input: Parameters<Engine["posts"]["create"]>[0]) => {
    advance(60);
    return engine.posts.create(input);
  };
  const collection = await engine.collections.create({ slug: "reading", title: "Reading list" });
  const bytes = pngImage(24, 16);
  const media = await engine.media.upload({ file: bytes, filename: "square.png", contentType: "image/png" });
  if (media.type !== "media") throw new Error("expected a media record");

  const busy = await create({
    format: "note",
    title: "A busy Thread",
    bodyMarkdown: "The start of a *long* conversation.",
    collectionIds: [collection.id],
    attachments: [{ type: "media", mediaId: media.id, alt: "A grey rectangle" }],
  });
  const replies = [];
  for (let i = 1; i <= 8; i++) {
    replies.push(await create({ format: "note", bodyMarkdown: `Reply number ${i}.`, replyToId: busy.id }));
  }
  const moved = await create({
    format: "note",
    title: "Moved elsewhere",
    bodyMarkdown: "This one lives at a custom URL.",
  });
  await engine.customUrls.create({ path: "2026/moved", targetType: "post", targetId: moved.id });
  await create({ format: "note", title: "Quiet one", bodyMarkdown: "Just a note." });
  await create({
    format: "link",
    title: "A link worth following",
    url: "https://example.com/article",
    bodyMarkdown: "Worth a read.",
  });
  await engine.customUrls.create({ path: "old-home", targetType: "redirect", toPath: "/reading" });

  const hidden = await engine.publicThreads.get({ slug: busy.slug as string, fold: true });
  const gap = hidden.fold?.gap;
  if (!gap) throw new Error("expected the busy Thread's fold to hide replies");
  return {
    busy: { id: busy.id, slug: busy.slug as string, title: "A busy Thread" },
    hiddenReply: { id: gap.id, slug: gap.slug },
    moved: { id: moved.id, slug: moved.slug as string, path: "/2026/moved", title: "Moved elsewhere" },
    collection: { slug: "reading", title: "Reading list" },
    redirect: { path: "/old-home", to: "/reading" },
    image: { url: media.url, bytes },
    rootTitles: ["A link worth following", "Quiet one", "Moved elsewhere", "A busy Thread"],
  };
}
