import { oldestAliasesOf } from "../custom-urls/aliases.js";
import { notFound } from "../errors.js";
import { defineOperation } from "../operation.js";
import { permalinkOf } from "../posts/post-view.js";
import { siteFileInput } from "./feed-schemas.js";
import { feedPaths, siteBase, sitePrefix, siteUrl } from "./feed-site.js";
import { type RawAnswer, rawAnswer } from "./raw-answer.js";

/** The sitemap protocol's limit of URLs in one file. */
export const sitemapMaxUrls = 50_000;

/** One `<url>` of the sitemap. */
interface SitemapUrl {
  loc: string;
  lastmod: number | null;
}

/**
 * sitemap.xml: the home page, every collection, every smart collection, and every published post
 * of a published, non-private Thread (latest-hidden ones included: they are readable at their
 * address), newest publication first, at most 50,000 URLs in all. 404 with NOINDEX or with the
 * public surface closed.
 */
export const sitemap = defineOperation({
  id: "feeds.sitemap",
  access: "public",
  description: "The site's sitemap.xml: the public addresses of posts, collections and smart collections.",
  hints: { readOnly: true, idempotent: true },
  input: siteFileInput,
  run: async (ctx, input): Promise<RawAnswer> => {
    if (ctx.settings.noindex || !ctx.settings.publicApiEnabled) throw notFound("Sitemap");
    const base = siteBase(ctx, input.origin);
    const collections = await ctx.db
      .selectFrom("collections")
      .select(["id", "slug", "updated_at"])
      .orderBy("created_at")
      .orderBy("id")
      .limit(sitemapMaxUrls)
      .execute();
    const aliases = await oldestAliasesOf(ctx.db, {
      targetType: "collection",
      targetIds: collections.map((row) => row.id),
    });
    const smart = await ctx.db
      .selectFrom("smart_collections")
      .select(["slug", "updated_at"])
      .orderBy("created_at")
      .orderBy("id")
      .limit(sitemapMaxUrls)
      .execute();
    const room = Math.max(0, sitemapMaxUrls - 1 - collections.length - smart.length);
    const posts =
      room === 0
        ? []
        : await ctx.db
            .selectFrom("posts as p")
            .innerJoin("posts as r", "r.id", "p.thread_id")
            .select(["p.slug", "p.permalink_path", "p.updated_at"])
            .where("p.status", "=", "published")
            .where("r.status", "=", "published")
            .where("r.visibility", "<>", "private")
            .orderBy("p.published_at", "desc")
            .orderBy("p.id", "desc")
            .limit(room)
            .execute();
    const urls: SitemapUrl[] = [
      { loc: siteUrl(base, "/"), lastmod: null },
      ...collections.map((row) => ({
        loc: siteUrl(base, aliases.get(row.id) ?? `/${row.slug}`),
        lastmod: row.updated_at,
      })),
      ...smart.map((row) => ({ loc: siteUrl(base, `/${row.slug}`), lastmod: row.updated_at })),
      ...posts.map((row) => ({ loc: `${base.origin}${permalinkOf(ctx, row)}`, lastmod: row.updated_at })),
    ];
    const lastModified = urls.reduce((max, url) => Math.max(max, url.lastmod ?? 0), 0);
    return rawAnswer("application/xml; charset=utf-8", sitemapXml(urls), lastModified);
  },
});

/**
 * The sitemap document. Every `loc` is an absolute URL, entity-escaped as the protocol requires;
 * `lastmod` is a W3C datetime. Written by hand: the format is six elements, and the one XML rule
 * that matters (escaping `& < > " '`) is applied to every value.
 */
function sitemapXml(urls: readonly SitemapUrl[]): string {
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
  ];
  for (const url of urls) {
    const lastmod =
      url.lastmod === null ? "" : `<lastmod>${new Date(url.lastmod * 1000).toISOString()}</lastmod>`;
    lines.push(`  <url><loc>${escapeXml(encodeURI(decodeURIComponentSafe(url.loc)))}</loc>${lastmod}</url>`);
  }
  lines.push("</urlset>", "");
  return lines.join("\n");
}

/** Percent-encoding of non-ASCII characters (the sitemap wants RFC 3986 URLs) without double-encoding. */
function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURI(text);
  } catch {
    return text;
  }
}

function escapeXml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}

/**
 * robots.txt: always answers. With NOINDEX (or the public surface closed) it disallows everything;
 * otherwise it keeps crawlers out of the API and names the sitemap (when the origin is known).
 */
export const robots = defineOperation({
  id: "feeds.robots",
  access: "public",
  description:
    "The site's robots.txt: everything disallowed under NOINDEX, else the API disallowed and the sitemap named.",
  hints: { readOnly: true, idempotent: true },
  input: siteFileInput,
  run: async (ctx, input): Promise<RawAnswer> => {
    const lines = ["User-agent: *"];
    if (ctx.settings.noindex || !ctx.settings.publicApiEnabled) {
      lines.push("Disallow: /");
    } else {
      lines.push(`Disallow: ${sitePrefix(ctx)}/api/`);
      const origin = input.origin ?? ctx.links?.siteOrigin;
      if (origin) lines.push("", `Sitemap: ${siteUrl(siteBase(ctx, origin), feedPaths.sitemap)}`);
    }
    return rawAnswer("text/plain; charset=utf-8", `${lines.join("\n")}\n`, 0);
  },
});
