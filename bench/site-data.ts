import { mediaKindBits } from "../packages/core/src/files/media-kinds.js";
import type { MediaRow } from "../packages/core/src/files/media-rows.js";
import { sequentialIds } from "../packages/core/src/shared/ids.js";
import type { StoredPost } from "../packages/core/src/threads/thread-rows.js";

/** Bump when the generated rows change, so cached databases are rebuilt. */
export const generatorVersion = 7;

/** A post row with every column set, as the benchmark inserts it. */
export type PostRowInput = StoredPost;
/** A media row with every column set. */
export type MediaRowInput = MediaRow;

/** Column order shared by the SQLite and PostgreSQL loaders. */
export const postColumns = [
  "id",
  "format",
  "status",
  "visibility",
  "slug",
  "title",
  "url",
  "source_name",
  "source_url",
  "quote_text",
  "summary",
  "rating",
  "display_title",
  "body",
  "body_html",
  "body_text",
  "body_markdown",
  "reply_to_id",
  "thread_id",
  "language",
  "quiet_reply",
  "pinned_at",
  "featured_at",
  "published_at",
  "created_at",
  "updated_at",
  "thread_post_count",
  "thread_reply_count",
  "last_activity_at",
  "thread_updated_at",
  "media_kinds",
  "permalink_path",
  "preview_kind",
  "preview_provider",
  "preview_image_url",
  "translation_group_id",
] as const satisfies readonly (keyof PostRowInput)[];

/** Column order of media rows. */
export const mediaColumns = [
  "id",
  "post_id",
  "position",
  "type",
  "media_kind",
  "mime_type",
  "original_name",
  "size",
  "width",
  "height",
  "duration_seconds",
  "alt",
  "blurhash",
  "waveform",
  "summary",
  "chars",
  "text_content",
  "storage_key",
  "poster_key",
  "preview_key",
  "created_at",
  "updated_at",
] as const satisfies readonly (keyof MediaRowInput)[];

/** A deterministic pseudo-random source (mulberry32), so every build of a size is the same site. */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    chance: (p: number) => next() < p,
    pick: <T>(weighted: [T, number][]): T => {
      let roll = next() * weighted.reduce((sum, [, weight]) => sum + weight, 0);
      for (const [value, weight] of weighted) {
        roll -= weight;
        if (roll < 0) return value;
      }
      return (weighted.at(-1) as [T, number])[0];
    },
  };
}

const siteStart = Date.UTC(2019, 0, 1) / 1000;
const siteYears = 5;
const words =
  "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore".split(
    " ",
  );

/** One Thread's rows: root first, then replies in creation order, and their attachments. */
export interface ThreadRows {
  posts: PostRowInput[];
  media: MediaRowInput[];
}

/** Column order of `site_addresses` rows. */
export const addressColumns = ["path", "owner_type", "owner_id"] as const;

/**
 * The addresses a Thread's posts hold, as the engine claims them: each post's slug, owned by the
 * post (`addresses.resolve` reads them; a create checks its slug against them).
 */
export function addressRows(thread: ThreadRows): Record<(typeof addressColumns)[number], string>[] {
  return thread.posts.map((post) => ({ path: post.slug, owner_type: "post", owner_id: post.id }));
}

/**
 * Generates a site of about `totalPosts` posts, Thread by Thread: mostly short Threads (0–50
 * replies, skewed low like a real blog), pins, features, quiet replies, drafts, every visibility and
 * format, ratings, two languages and attachments of every kind. Thread figures on each root are
 * computed exactly as the engine keeps them.
 */
export function* generateSite(totalPosts: number, seed = 7): Generator<ThreadRows> {
  const rnd = random(seed);
  const ids = sequentialIds();
  const expectedThreads = totalPosts / 4.5;
  const gap = (siteYears * 365 * 86400) / expectedThreads;
  let produced = 0;
  let thread = 0;
  let time = siteStart;
  let pinsLeft = 5;
  while (produced < totalPosts) {
    // About one root in twenty shares its publication second with the previous one (id breaks the tie).
    if (!rnd.chance(0.05)) time += Math.max(1, Math.round(gap * (0.5 + rnd.next())));
    const replyCount = Math.min(
      totalPosts - produced - 1,
      rnd.pick<() => number>([
        [() => 0, 55],
        [() => rnd.int(1, 5), 30],
        [() => rnd.int(6, 20), 12],
        [() => rnd.int(21, 50), 3],
      ])(),
    );
    const pin = pinsLeft > 0 && thread % Math.max(1, Math.floor(expectedThreads / 5)) === 3;
    const rows = generateThread(rnd, ids, { n: thread, time, replyCount, pin, rootGap: gap });
    if (pin) pinsLeft -= 1;
    produced += rows.posts.length;
    thread += 1;
    yield rows;
  }
}

function generateThread(
  rnd: ReturnType<typeof random>,
  ids: ReturnType<typeof sequentialIds>,
  spec: { n: number; time: number; replyCount: number; pin: boolean; rootGap: number },
): ThreadRows {
  const rootId = ids.generate("pst");
  const status = spec.pin || rnd.chance(0.96) ? "published" : "draft";
  const visibility = spec.pin
    ? "public"
    : rnd.pick([
        ["public", 85],
        ["latest_hidden", 10],
        ["private", 5],
      ]);
  const format = rnd.pick([
    ["note", 70],
    ["link", 20],
    ["quote", 10],
  ]);
  const language = rnd.chance(0.8) ? "en" : "de";
  const root = post(rnd, {
    id: rootId,
    slug: `t${spec.n}`,
    format,
    status,
    visibility,
    language,
    time: spec.time,
    replyToId: null,
    threadId: rootId,
    quiet: false,
  });
  root.pinned_at = spec.pin ? spec.time : null;
  root.featured_at = status === "published" && rnd.chance(0.02) ? spec.time : null;
  root.rating = rnd.chance(0.2) ? rnd.int(1, 5) : null;

  const posts = [root];
  const media: MediaRowInput[] = [];
  const rootMedia = rnd.chance(0.2) ? attachment(rnd, ids, rootId, spec.time) : null;
  if (rootMedia) media.push(rootMedia);
  root.media_kinds = rootMedia ? mediaKindBits([rootMedia.media_kind]) : 0;

  let replyTime = spec.time;
  for (let i = 0; i < spec.replyCount; i++) {
    // Replies come about as often as new Threads (in units of the gap between roots), so a page
    // holds the same mix of long and short Threads whatever the size of the site.
    replyTime += Math.max(1, Math.round(spec.rootGap * 2 * rnd.next()));
    const parent =
      posts.length > 1 && rnd.chance(0.3) ? (posts[rnd.int(1, posts.length - 1)] as PostRowInput) : root;
    const reply = post(rnd, {
      id: ids.generate("pst"),
      slug: `t${spec.n}-r${i}`,
      format: "note",
      status: status === "published" && rnd.chance(0.95) ? "published" : "draft",
      visibility,
      language,
      time: replyTime,
      replyToId: parent.id,
      threadId: rootId,
      quiet: rnd.chance(0.15),
    });
    posts.push(reply);
    if (rnd.chance(0.1)) media.push(attachment(rnd, ids, reply.id, replyTime));
  }
  setThreadFigures(root, posts);
  return { posts, media };
}

/** The figures `refreshThreadFigures` keeps: published counts and the newest publication times. */
function setThreadFigures(root: PostRowInput, posts: PostRowInput[]): void {
  const published = posts.filter((p) => p.status === "published");
  const times = (list: PostRowInput[]) => list.map((p) => p.published_at as number);
  root.thread_post_count = published.length;
  root.thread_reply_count = published.filter((p) => p.id !== root.id).length;
  const loud = times(published.filter((p) => p.quiet_reply === 0));
  root.last_activity_at = loud.length ? Math.max(...loud) : root.created_at;
  root.thread_updated_at = published.length ? Math.max(...times(published)) : root.created_at;
}

function post(
  rnd: ReturnType<typeof random>,
  spec: {
    id: string;
    slug: string;
    format: string;
    status: string;
    visibility: string;
    language: string;
    time: number;
    replyToId: string | null;
    threadId: string;
    quiet: boolean;
  },
): PostRowInput {
  const text = Array.from({ length: rnd.int(20, 45) }, () => words[rnd.int(0, words.length - 1)]).join(" ");
  const title = spec.format === "quote" || spec.replyToId || rnd.chance(0.3) ? null : `Post ${spec.slug}`;
  const published = spec.status === "published";
  return {
    id: spec.id,
    format: spec.format,
    status: spec.status,
    visibility: spec.visibility,
    slug: spec.slug,
    title,
    url: spec.format === "link" ? `https://example.com/${spec.slug}` : null,
    source_name: spec.format === "quote" ? "A. Author" : null,
    source_url: null,
    quote_text: spec.format === "quote" ? text.slice(0, 80) : null,
    summary: null,
    rating: null,
    display_title: title ?? text.slice(0, 60),
    body: JSON.stringify({
      type: "doc",
      content: [{ type: "paragraph", content: [{ type: "text", text }] }],
    }),
    body_html: `<p>${text}</p>`,
    body_text: text,
    body_markdown: text,
    reply_to_id: spec.replyToId,
    thread_id: spec.threadId,
    language: spec.language,
    quiet_reply: spec.quiet ? 1 : 0,
    pinned_at: null,
    featured_at: null,
    published_at: published ? spec.time : null,
    created_at: spec.time,
    updated_at: spec.time,
    thread_post_count: 0,
    thread_reply_count: 0,
    last_activity_at: spec.time,
    thread_updated_at: spec.time,
    media_kinds: 0,
    permalink_path: null,
    preview_kind: null,
    preview_provider: null,
    preview_image_url: null,
    translation_group_id: null,
  };
}

function attachment(
  rnd: ReturnType<typeof random>,
  ids: ReturnType<typeof sequentialIds>,
  postId: string,
  time: number,
): MediaRowInput {
  const id = ids.generate("med");
  const kind = rnd.pick([
    ["image", 60],
    ["video", 15],
    ["audio", 10],
    ["text", 15],
  ]);
  const text = kind === "text";
  return {
    id,
    post_id: postId,
    position: 0,
    type: text ? "text" : "media",
    media_kind: kind,
    mime_type: { image: "image/jpeg", video: "video/mp4", audio: "audio/mpeg", text: "text/markdown" }[
      kind
    ] as string,
    original_name: `${id}.${kind === "text" ? "md" : "bin"}`,
    size: rnd.int(1_000, 5_000_000),
    width: kind === "image" || kind === "video" ? 1600 : null,
    height: kind === "image" || kind === "video" ? 900 : null,
    duration_seconds: kind === "video" || kind === "audio" ? rnd.int(5, 600) : null,
    alt: kind === "image" ? "A picture" : null,
    blurhash: null,
    waveform: null,
    summary: null,
    chars: text ? 120 : null,
    text_content: text ? "Some notes in Markdown." : null,
    storage_key: `media/${id}`,
    poster_key: null,
    preview_key: kind === "image" ? `media/${id}-preview` : null,
    created_at: time,
    updated_at: time,
  };
}
