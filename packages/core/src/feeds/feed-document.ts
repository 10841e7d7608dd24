import { Feed, type Item } from "feed";
import { TypeID } from "typeid-js";
import type { SiteSettings } from "../deps.js";
import type { FeedRow } from "./feed-entries.js";
import type { FeedFormat } from "./feed-schemas.js";

/** What a feed says about itself. */
export interface FeedHead {
  /** The feed's ID: a site feed's address without its format, a collection's `urn:uuid:` of its ID. */
  id: string;
  title: string;
  description: string;
  /** The page the feed mirrors (absolute URL). */
  homeUrl: string;
  /** The feed's own address in each format (absolute URLs). */
  selfUrls: Record<FeedFormat, string>;
}

/** Media types the feeds are sent with. */
export const feedContentTypes: Record<FeedFormat, string> = {
  rss: "application/rss+xml; charset=utf-8",
  atom: "application/atom+xml; charset=utf-8",
  json: "application/feed+json; charset=utf-8",
};

/**
 * An entry's ID: the post's ID as a URN, so it stays the same when the slug, the title, the site's
 * address or its prefix change. A TypeID's suffix is a UUID, so the URN is `urn:uuid:<uuid>`; an ID
 * that is not a TypeID (never written by the engine) falls back to `urn:quire:post:<id>`.
 */
export function entryId(postId: string): string {
  return uuidUrn(postId, "post");
}

/** `urn:uuid:` of a TypeID's UUID, else `urn:quire:<kind>:<id>`. */
export function uuidUrn(id: string, kind: string): string {
  try {
    return `urn:uuid:${TypeID.fromString(id).toUUID()}`;
  } catch {
    return `urn:quire:${kind}:${encodeURIComponent(id)}`;
  }
}

/**
 * The feed as text, built with the `feed` library (which escapes every value: CDATA for HTML,
 * entities for the rest). Atom entries' titles are sent as HTML, so they are escaped once more
 * here; RSS and JSON carry them as text. JSON is JSON Feed 1.1.
 */
export function feedDocument(
  format: FeedFormat,
  head: FeedHead,
  rows: readonly FeedRow[],
  settings: Pick<SiteSettings, "siteName" | "siteLanguage">,
  permalink: (row: FeedRow) => string,
): string {
  const newest = rows.reduce((max, row) => Math.max(max, row.updated_at), 0);
  const feed = new Feed({
    id: head.id,
    title: head.title,
    // RSS 2.0 requires a channel description: the title stands in for an empty one.
    description: head.description || (format === "rss" ? head.title : undefined),
    link: head.homeUrl,
    language: settings.siteLanguage,
    updated: new Date(newest * 1000),
    generator: "Quire",
    feedLinks: { atom: head.selfUrls.atom, rss: head.selfUrls.rss, json: head.selfUrls.json },
    ...(format === "rss" ? {} : { author: { name: settings.siteName } }),
    copyright: "",
  });
  for (const row of rows) {
    const title = row.title?.trim() || row.display_title;
    const item: Item = {
      title: format === "atom" ? escapeHtml(title) : title,
      id: entryId(row.id),
      guid: entryId(row.id),
      link: permalink(row),
      // RSS's pubDate and JSON's date_published are the publication; Atom's updated the last edit.
      date: new Date((format === "atom" ? row.updated_at : (row.published_at ?? row.updated_at)) * 1000),
      published: new Date((row.published_at ?? row.updated_at) * 1000),
      content: row.body_html ?? "",
      // RSS's <author> must be an e-mail address: RSS items name none.
      ...(format === "rss" ? {} : { author: [{ name: settings.siteName }] }),
    };
    if (row.summary) item.description = row.summary;
    feed.addItem(item);
  }
  if (format === "rss") return xmlCharsOnly(feed.rss2());
  if (format === "atom") return xmlCharsOnly(withAtomLanguage(feed.atom1(), settings.siteLanguage));
  return jsonFeed(feed.json1(), rows, settings);
}

/**
 * Characters XML 1.0 cannot carry, escaped or not (its `Char` production allows tab, line feed,
 * carriage return, U+0020–U+D7FF, U+E000–U+FFFD and U+10000 up): control characters pasted into a
 * title or a body, U+FFFE, U+FFFF. The API stores text as sent, but one such character makes a
 * strict reader refuse the whole feed ("PCDATA invalid Char value"), so the XML feeds leave them
 * out, as Ghost does for its RSS (dylang/node-rss#49); the `feed` library writes them as they come.
 * The JSON feed keeps them (JSON escapes them).
 */
const outsideXml = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** The document without the characters XML cannot carry (see {@link outsideXml}). */
function xmlCharsOnly(xml: string): string {
  outsideXml.lastIndex = 0;
  return outsideXml.test(xml) ? xml.replace(outsideXml, "") : xml;
}

/**
 * The feed's language on its root element (`xml:lang`, RFC 4287 § 2), which the `feed` library's
 * Atom writer leaves out though it writes RSS's `<language>`. The tag is a checked BCP 47 tag
 * (letters, digits, hyphens), so it needs no escaping.
 */
function withAtomLanguage(xml: string, language: string): string {
  return xml.replace(
    /<feed xmlns="http:\/\/www\.w3\.org\/2005\/Atom"/,
    (root) => `${root} xml:lang="${language}"`,
  );
}

/**
 * The library writes JSON Feed 1.0; 1.1 (which 1.0 readers read) adds `language` and `authors` and
 * deprecates `author`, and every item gets its publication and edit times.
 */
function jsonFeed(
  text: string,
  rows: readonly FeedRow[],
  settings: Pick<SiteSettings, "siteName" | "siteLanguage">,
): string {
  const document = JSON.parse(text) as Record<string, unknown> & { items?: Record<string, unknown>[] };
  document.version = "https://jsonfeed.org/version/1.1";
  document.language = settings.siteLanguage;
  delete document.author;
  document.authors = [{ name: settings.siteName }];
  const items = document.items ?? [];
  items.forEach((item, index) => {
    const row = rows[index];
    delete item.author;
    item.authors = [{ name: settings.siteName }];
    if (row) {
      if (row.published_at !== null) item.date_published = new Date(row.published_at * 1000).toISOString();
      item.date_modified = new Date(row.updated_at * 1000).toISOString();
      if (row.language) item.language = row.language;
      // The library writes an item's summary only when it has content: a link post with no body
      // lost its summary here, which RSS and Atom carry.
      if (row.summary) item.summary = row.summary;
    }
  });
  document.items = items;
  return `${JSON.stringify(document, null, 2)}\n`;
}

/** Text as HTML text. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}
