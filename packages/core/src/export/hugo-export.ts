import * as z from "zod";
import type { EngineContext } from "../deps.js";
import { defineOperation } from "../operation.js";
import { settingsView } from "../settings/settings-store.js";
import { chunksOf } from "../storage.js";
import { pullStream, type StreamedFile } from "./streamed-file.js";
import { tablePages } from "./table-pages.js";
import { type ZipEntry, zipEntries } from "./zip-writer.js";

type Row = Record<string, unknown>;

/** Input of `export.hugo`: whether drafts are included (as `draft: true` pages). */
export const hugoExportInput = z.object({
  drafts: z.boolean().default(true),
});

/**
 * The site as a Hugo source tree in a ZIP, streamed (docs/export.md § Hugo export): a branch
 * bundle per Thread (the root's `_index.md`, a leaf bundle per reply, attachments beside them),
 * collections as a taxonomy, and `data/` with settings, navigation, the directory and custom URLs.
 */
export const exportHugo = defineOperation({
  id: "export.hugo",
  access: "owner",
  description:
    "Exports the site as a Hugo source tree in a ZIP, streamed: Thread bundles, collections, data files.",
  hints: { readOnly: true },
  input: hugoExportInput,
  run: async (ctx, input): Promise<StreamedFile> => ({
    streamed: true,
    contentType: "application/zip",
    filename: `quire-hugo-${new Date(ctx.clock.now() * 1000).toISOString().slice(0, 10)}.zip`,
    body: pullStream(zipEntries(hugoEntries(ctx, input.drafts))),
  }),
});

/** Every file of the Hugo tree, produced page by page (posts 500 at a time, one query each for their attachments and memberships). */
export async function* hugoEntries(
  ctx: EngineContext,
  drafts = true,
): AsyncGenerator<ZipEntry, void, undefined> {
  const db = ctx.db;
  const now = ctx.clock.now();
  const settings = settingsView(await ctx.settingsStore.resolved()).settings;
  const site = ctx.settings;
  const collections = await db.selectFrom("collections").selectAll().orderBy("id").execute();
  const collectionSlugs = new Map(collections.map((row) => [row.id, row.slug]));
  const smart = await db.selectFrom("smart_collections").selectAll().orderBy("id").execute();

  yield { name: "hugo.toml", text: hugoConfig(settings), mtime: now };
  yield {
    name: "content/_index.md",
    text: page({ title: settings.SITE_NAME ?? "", description: settings.SITE_DESCRIPTION ?? "" }, ""),
    mtime: now,
  };
  yield { name: "content/threads/_index.md", text: page({ title: "Threads" }, ""), mtime: now };
  yield { name: "content/collections/_index.md", text: page({ title: "Collections" }, ""), mtime: now };
  for (const row of collections) {
    yield {
      name: `content/collections/${segment(row.slug)}/_index.md`,
      text: page(
        {
          title: row.title,
          description: row.description ?? "",
          params: { id: row.id, sortOrder: row.sort_order },
        },
        row.description ?? "",
      ),
      mtime: row.updated_at,
    };
  }
  for (const row of smart) {
    yield {
      name: `content/smart-collections/${segment(row.slug)}/_index.md`,
      text: page(
        {
          title: row.title,
          description: row.description ?? "",
          params: {
            id: row.id,
            selection: JSON.parse(row.selection),
            sortOrder: row.sort_order,
            layout: row.layout,
          },
        },
        row.description ?? "",
      ),
      mtime: row.updated_at,
    };
  }

  for await (const posts of tablePages(db, { name: "posts", key: ["id"] })) {
    const ids = posts.map((post) => post.id as string);
    const threadIds = [...new Set(posts.map((post) => post.thread_id as string))];
    const roots = new Map(
      (
        await db.selectFrom("posts").select(["id", "slug", "status"]).where("id", "in", threadIds).execute()
      ).map((row) => [row.id, row]),
    );
    const media = await db
      .selectFrom("media")
      .selectAll()
      .where("post_id", "in", ids)
      .orderBy("position")
      .execute();
    const memberships = await db
      .selectFrom("collection_threads")
      .select(["collection_id", "thread_id", "pinned_at", "position"])
      .where("thread_id", "in", ids)
      .execute();
    const aliases = await db
      .selectFrom("custom_urls")
      .select(["target_id", "path"])
      .where("target_type", "=", "post")
      .where("target_id", "in", ids)
      .orderBy("path")
      .execute();
    for (const post of posts) {
      if (!drafts && post.status !== "published") continue;
      const root = roots.get(post.thread_id as string);
      const isRoot = post.reply_to_id === null;
      const folder = `content/threads/${segment(root?.slug ?? (post.thread_id as string))}`;
      const dir = isRoot ? folder : `${folder}/${segment(post.slug as string)}`;
      const attachments = media.filter((row) => row.post_id === post.id);
      const resources: Row[] = [];
      for (const attachment of attachments) {
        const file = `${attachment.id}-${segment(attachment.original_name)}`;
        resources.push({
          src: file,
          title: attachment.alt ?? attachment.original_name,
          params: {
            id: attachment.id,
            kind: attachment.media_kind,
            mimeType: attachment.mime_type,
            alt: attachment.alt,
          },
        });
        if (attachment.type === "text" && attachment.text_content !== null) {
          yield { name: `${dir}/${file}`, text: attachment.text_content, mtime: attachment.updated_at };
        } else if (ctx.storage) {
          const read = await ctx.storage.get(attachment.storage_key);
          if (read)
            yield { name: `${dir}/${file}`, bytes: chunksOf(read.body), mtime: attachment.updated_at };
          else
            ctx.logger.warn("hugo export: an attachment's file is missing from storage", {
              key: attachment.storage_key,
            });
        }
      }
      const inCollections = memberships.filter((row) => row.thread_id === post.id);
      yield {
        name: `${dir}/${isRoot ? "_index.md" : "index.md"}`,
        text: page(
          {
            ...frontMatter(post, isRoot, resources, inCollections, collectionSlugs),
            ...aliasesOf(post, aliases),
          },
          (post.body_markdown as string) ?? "",
        ),
        mtime: post.updated_at as number,
      };
    }
  }

  const nav = await db.selectFrom("nav_items").selectAll().orderBy("position").orderBy("id").execute();
  const directory = await db
    .selectFrom("directory_items")
    .selectAll()
    .orderBy("position")
    .orderBy("id")
    .execute();
  const customUrls = await db.selectFrom("custom_urls").selectAll().orderBy("path").execute();
  const threads = await db
    .selectFrom("collection_threads")
    .select(["collection_id", "thread_id", "pinned_at", "position", "created_at"])
    .orderBy("collection_id")
    .orderBy("thread_id")
    .execute();
  yield {
    name: "data/settings.json",
    text: json({ ...settings, sitePathPrefix: site.sitePathPrefix }),
    mtime: now,
  };
  yield { name: "data/navigation.json", text: json(nav.map(camel)), mtime: now };
  yield { name: "data/directory.json", text: json(directory.map(camel)), mtime: now };
  yield { name: "data/custom_urls.json", text: json(customUrls.map(camel)), mtime: now };
  yield {
    name: "data/collections.json",
    text: json(
      collections.map((row) => ({
        ...camel(row),
        threads: threads.filter((member) => member.collection_id === row.id).map(camel),
      })),
    ),
    mtime: now,
  };
  yield {
    name: "data/smart_collections.json",
    text: json(smart.map((row) => ({ ...camel(row), selection: JSON.parse(row.selection) }))),
    mtime: now,
  };
}

function frontMatter(
  post: Row,
  isRoot: boolean,
  resources: Row[],
  memberships: { collection_id: string; pinned_at: number | null; position: string | null }[],
  collectionSlugs: Map<string, string>,
): Row {
  const date = (seconds: unknown) =>
    typeof seconds === "number" ? new Date(seconds * 1000).toISOString() : undefined;
  return {
    title: post.display_title ?? post.title ?? "",
    date: date(post.published_at ?? post.created_at),
    lastmod: date(post.updated_at),
    draft: post.status !== "published",
    slug: post.slug,
    ...(typeof post.permalink_path === "string"
      ? { url: `/${String(post.permalink_path).replace(/^\/+/, "")}` }
      : {}),
    ...(typeof post.summary === "string" && post.summary !== "" ? { summary: post.summary } : {}),
    ...(post.language ? { languageCode: post.language } : {}),
    ...(isRoot && post.translation_group_id ? { translationKey: post.translation_group_id } : {}),
    ...(isRoot && memberships.length > 0
      ? { collections: memberships.map((row) => collectionSlugs.get(row.collection_id)).filter(Boolean) }
      : {}),
    ...(resources.length > 0 ? { resources } : {}),
    params: {
      id: post.id,
      format: post.format,
      status: post.status,
      visibility: post.visibility,
      threadId: post.thread_id,
      replyToId: post.reply_to_id,
      quietReply: post.quiet_reply === 1 || post.quiet_reply === true,
      pinned: post.pinned_at !== null,
      featured: post.featured_at !== null,
      url: post.url,
      sourceName: post.source_name,
      sourceUrl: post.source_url,
      quoteText: post.quote_text,
      rating: post.rating,
      ...(isRoot
        ? {
            threadPostCount: post.thread_post_count,
            threadReplyCount: post.thread_reply_count,
            lastActivityAt: date(post.last_activity_at),
            pins: memberships
              .filter((row) => row.pinned_at !== null)
              .map((row) => collectionSlugs.get(row.collection_id)),
          }
        : {}),
    },
  };
}

/** Hugo `aliases` (redirect pages) for a post's custom URLs other than its permalink. */
function aliasesOf(post: Row, aliases: { target_id: string | null; path: string }[]): Row {
  const paths = aliases
    .filter(
      (row) =>
        row.target_id === post.id &&
        row.path.replace(/^\/+/, "") !== String(post.permalink_path ?? "").replace(/^\/+/, ""),
    )
    .map((row) => `/${row.path.replace(/^\/+/, "")}`);
  return paths.length > 0 ? { aliases: paths } : {};
}

/** A Markdown page: YAML front matter (every value written as JSON, which YAML reads as is), then the body. */
function page(front: Row, body: string): string {
  const lines = Object.entries(front)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${key}: ${readableJson(value)}`);
  return `---\n${lines.join("\n")}\n---\n${body}${body.endsWith("\n") || body === "" ? "" : "\n"}`;
}

function hugoConfig(settings: Record<string, string>): string {
  // Settings hold no control characters (settings/write-settings.ts refuses them), so a JSON string
  // is a TOML basic string as it is.
  const toml = (value: string) => JSON.stringify(value);
  return [
    `baseURL = ${toml(settings.SITE_URL ?? "/")}`,
    `title = ${toml(settings.SITE_NAME ?? "")}`,
    `languageCode = ${toml(settings.SITE_LANGUAGE ?? "en")}`,
    `defaultContentLanguage = ${toml(settings.SITE_LANGUAGE ?? "en")}`,
    "",
    "[taxonomies]",
    '  collection = "collections"',
    "",
    "[params]",
    `  description = ${toml(settings.SITE_DESCRIPTION ?? "")}`,
    `  footer = ${toml(settings.SITE_FOOTER ?? "")}`,
    "",
  ].join("\n");
}

/**
 * JSON text that YAML reads as JSON reads it. `JSON.stringify` escapes only C0 controls and writes
 * DEL, the C1 controls (U+0080–U+009F, common in text pasted from a mis-decoded Windows-1252
 * source), U+FFFE and U+FFFF as they are; YAML allows none of them in a file (its `c-printable`
 * set; go-yaml, which Hugo reads front matter with, stops the build at "control characters are not
 * allowed", as in mikefarah/yq#845). These, and U+2028, U+2029 (line breaks to YAML 1.1 readers)
 * and U+FEFF, are written as `\uXXXX` escapes, which JSON and YAML read back as the same
 * character. Surrogate pairs stay as they are: go-yaml refuses them escaped (gohugoio/hugo#3857),
 * and `JSON.stringify` writes an emoji whole.
 */
function readableJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** A path segment from a slug or a file name: no separators, no dot segments. */
function segment(text: string): string {
  const cleaned = text.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^[.-]+/, "");
  return cleaned === "" ? "_" : cleaned;
}

function camel(row: Record<string, unknown>): Row {
  return Object.fromEntries(
    Object.entries(row).map(([key, value]) => [
      key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()),
      value,
    ]),
  );
}

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
