import type { EngineContext } from "../deps.js";
import { invalidField, notFound } from "../errors.js";

/** Where a feed's links point: the site's origin and its path prefix. */
export interface SiteBase {
  /** `https://example.com`, no trailing slash. */
  origin: string;
  /** "" or like "/blog". */
  prefix: string;
}

/** The site's path prefix as "" or "/blog". */
export function sitePrefix(ctx: Pick<EngineContext, "settings">): string {
  const trimmed = ctx.settings.sitePathPrefix.trim().replace(/\/+$/, "");
  return trimmed === "" ? "" : trimmed.startsWith("/") ? trimmed : `/${trimmed}`;
}

/**
 * The origin feeds write their links under: the caller's `origin` in-process, else the one the
 * adapter serves (over HTTP the request's). Feeds need absolute links, so one of them is required.
 */
export function siteBase(
  ctx: Pick<EngineContext, "settings" | "links">,
  origin: string | undefined,
): SiteBase {
  const chosen = origin ?? ctx.links?.siteOrigin;
  if (!chosen) {
    throw invalidField(
      "origin",
      "Feeds write absolute links: pass the site's origin, e.g. https://example.com",
    );
  }
  return { origin: chosen.replace(/\/+$/, ""), prefix: sitePrefix(ctx) };
}

/** An absolute URL of a path on the site (`path` starts with "/" and is below the prefix). */
export function siteUrl(base: SiteBase, path: string): string {
  return `${base.origin}${base.prefix}${path}`;
}

/** Feeds answer only while RSS_FEEDS_ENABLED and PUBLIC_API_ENABLED are both true: 404 otherwise. */
export function checkFeedsOpen(ctx: Pick<EngineContext, "settings">): void {
  if (!ctx.settings.rssFeedsEnabled || !ctx.settings.publicApiEnabled) throw notFound("Feed");
}

/** The addresses of the feeds on the site, below the prefix (the HTTP route table serves them). */
export const feedPaths = {
  main: (format: string) => `/feeds/${format}`,
  latest: (format: string) => `/feeds/latest/${format}`,
  featured: (format: string) => `/feeds/featured/${format}`,
  collection: (slug: string, format: string) => `/feeds/collections/${encodeURIComponent(slug)}/${format}`,
  sitemap: "/sitemap.xml",
} as const;
