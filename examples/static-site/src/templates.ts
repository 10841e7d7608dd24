import type { Engine, SiteSettings } from "@quire/core";

/** A Thread as the public reads answer it (reading view). */
export type Thread = Awaited<ReturnType<Engine["publicThreads"]["list"]>>["threads"][number];
/** A post in the reading view. */
export type Post = Thread["root"];
/** An attachment object of a post. */
export type Attachment = Post["attachments"][number];

/** Text for HTML text and attribute values. */
export function escapeHtml(value: unknown): string {
  return String(value ?? "")
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

/** What every page of a build shares. */
export interface SiteFrame {
  settings: SiteSettings;
  /** The site's home path: the path prefix, or `/`. */
  home: string;
  /** The stylesheet's path. */
  stylesheet: string;
  /** Links at the top of every page (the collections directory). */
  nav: { label: string; href: string }[];
  /** Feed links for `<link rel="alternate">`, when the build wrote feeds. */
  feeds: { title: string; href: string; type: string }[];
}

/** One whole HTML page. `canonical` is the page's own path (site path prefix included). */
export function page(
  frame: SiteFrame,
  options: { title: string; canonical: string; body: string; description?: string | undefined },
): string {
  const { settings } = frame;
  const fullTitle =
    options.title === settings.siteName ? settings.siteName : `${options.title} · ${settings.siteName}`;
  const description = options.description ?? settings.siteDescription;
  const nav = frame.nav
    .map((item) => `<li><a href="${escapeHtml(item.href)}">${escapeHtml(item.label)}</a></li>`)
    .join("");
  return `<!doctype html>
<html lang="${escapeHtml(settings.siteLanguage)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(fullTitle)}</title>
${description ? `<meta name="description" content="${escapeHtml(description)}">\n` : ""}${
  settings.noindex ? '<meta name="robots" content="noindex">\n' : ""
}<link rel="canonical" href="${escapeHtml(options.canonical)}">
<link rel="stylesheet" href="${escapeHtml(frame.stylesheet)}">
${frame.feeds
  .map(
    (feed) =>
      `<link rel="alternate" type="${escapeHtml(feed.type)}" title="${escapeHtml(feed.title)}" href="${escapeHtml(feed.href)}">\n`,
  )
  .join("")}</head>
<body>
<header class="site"><a class="site-name" href="${escapeHtml(frame.home)}">${escapeHtml(settings.siteName)}</a>${
    nav ? `<nav><ul>${nav}</ul></nav>` : ""
  }</header>
<main>
${options.body}
</main>
${settings.siteFooter ? `<footer class="site">${escapeHtml(settings.siteFooter)}</footer>\n` : ""}</body>
</html>
`;
}

/** A page that sends the reader on to `location`: a meta refresh, a canonical link and a plain link. */
export function redirectPage(location: string): string {
  const to = escapeHtml(location);
  return `<!doctype html>
<html>
<head>
<meta charset="utf-8">
<title>Moved</title>
<meta name="robots" content="noindex">
<link rel="canonical" href="${to}">
<meta http-equiv="refresh" content="0; url=${to}">
</head>
<body>
<p>This page has moved to <a href="${to}">${to}</a>.</p>
</body>
</html>
`;
}

/** The heading text of a post: its title, else the quote's source, else nothing. */
export function postTitle(post: Post): string | null {
  const title = typeof post.title === "string" && post.title.trim() !== "" ? post.title : null;
  if (title) return title;
  if (post.format === "quote" && typeof post.sourceName === "string" && post.sourceName !== "") {
    return post.sourceName;
  }
  return null;
}

/** A short text naming a post, for a page title: its title, else the start of its text. */
export function postLabel(post: Post): string {
  const title = postTitle(post);
  if (title) return title;
  const text = String(post.bodyText ?? post.quoteText ?? "").trim();
  if (text === "") return "Untitled";
  return text.length > 60 ? `${text.slice(0, 59).trimEnd()}…` : text;
}

function dateOf(seconds: unknown): string {
  if (typeof seconds !== "number") return "";
  const date = new Date(seconds * 1000);
  return `<time datetime="${date.toISOString()}">${date.toISOString().slice(0, 10)}</time>`;
}

function attachmentHtml(attachment: Attachment): string {
  if (attachment.type === "text") {
    if (!attachment.url) return "";
    const label = attachment.summary ? escapeHtml(attachment.summary) : "Attached text";
    return `<p class="attachment"><a href="${escapeHtml(attachment.url)}">${label}</a></p>`;
  }
  if (!attachment.url) return "";
  const url = escapeHtml(attachment.url);
  const alt = escapeHtml(attachment.alt ?? "");
  const size =
    attachment.width && attachment.height ? ` width="${attachment.width}" height="${attachment.height}"` : "";
  if (attachment.mimeType.startsWith("image/")) {
    return `<figure class="attachment"><img src="${escapeHtml(attachment.previewUrl || attachment.url)}" alt="${alt}"${size} loading="lazy"></figure>`;
  }
  if (attachment.mimeType.startsWith("video/")) {
    const poster = attachment.posterUrl ? ` poster="${escapeHtml(attachment.posterUrl)}"` : "";
    return `<figure class="attachment"><video controls preload="none" src="${url}"${poster}${size}></video></figure>`;
  }
  if (attachment.mimeType.startsWith("audio/")) {
    return `<figure class="attachment"><audio controls preload="none" src="${url}"></audio></figure>`;
  }
  return `<p class="attachment"><a href="${url}">${escapeHtml(attachment.originalName)}</a></p>`;
}

/**
 * One post as an `<article>`. `linkTitle`: its heading links to its permalink (lists);
 * `current`: the post the page is about (a reply's own page).
 */
export function postHtml(
  post: Post,
  options: { linkTitle: boolean; current?: boolean; reply?: boolean },
): string {
  const title = postTitle(post);
  const permalink = escapeHtml(post.permalink);
  const heading = title
    ? `<h2>${options.linkTitle ? `<a href="${permalink}">${escapeHtml(title)}</a>` : escapeHtml(title)}</h2>`
    : "";
  const link =
    post.format === "link" && typeof post.url === "string"
      ? `<p class="link"><a href="${escapeHtml(post.url)}" rel="external">${escapeHtml(post.url)}</a></p>`
      : "";
  const quote =
    post.format === "quote" && typeof post.quoteText === "string"
      ? `<blockquote>${escapeHtml(post.quoteText)}${
          typeof post.sourceUrl === "string"
            ? `<footer><a href="${escapeHtml(post.sourceUrl)}" rel="external">${escapeHtml(post.sourceName ?? post.sourceUrl)}</a></footer>`
            : ""
        }</blockquote>`
      : "";
  // bodyHtml is the engine's rendered, sanitised HTML (docs/rendering.md).
  const body = typeof post.bodyHtml === "string" ? `<div class="body">${post.bodyHtml}</div>` : "";
  const classes = ["post", options.reply ? "reply" : "root", options.current ? "current" : ""]
    .filter(Boolean)
    .join(" ");
  return `<article class="${classes}" id="${escapeHtml(post.id)}"${options.current ? ' aria-current="page"' : ""}>
${heading}${link}${quote}${body}${post.attachments.map(attachmentHtml).join("")}
<p class="meta"><a class="permalink" href="${permalink}">${dateOf(post.publishedAt) || "Permalink"}</a></p>
</article>`;
}

/** A Thread in a list: its root, and the fold of its replies when the read asked for one. */
export function threadSummaryHtml(thread: Thread): string {
  const parts = [postHtml(thread.root, { linkTitle: true })];
  const fold = thread.fold;
  if (fold && (fold.leading.length > 0 || fold.trailing.length > 0)) {
    const replies = [...fold.leading.map((post) => postHtml(post, { linkTitle: true, reply: true }))];
    if (fold.hidden > 0 && fold.gap) {
      const more = fold.hidden === 1 ? "1 more reply" : `${fold.hidden} more replies`;
      const href = fold.gap.permalink ?? thread.root.permalink;
      replies.push(`<p class="gap"><a href="${escapeHtml(href)}#${escapeHtml(fold.gap.id)}">${more}</a></p>`);
    }
    replies.push(...fold.trailing.map((post) => postHtml(post, { linkTitle: true, reply: true })));
    parts.push(`<div class="fold">${replies.join("\n")}</div>`);
  }
  return `<section class="thread">${parts.join("\n")}</section>`;
}

/** Previous/next page links of a paginated list. */
export function pagerHtml(previous: string | null, next: string | null): string {
  if (!previous && !next) return "";
  return `<nav class="pager">${previous ? `<a rel="prev" href="${escapeHtml(previous)}">Newer</a>` : ""}${
    next ? `<a rel="next" href="${escapeHtml(next)}">Older</a>` : ""
  }</nav>`;
}
