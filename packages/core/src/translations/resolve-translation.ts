import { findAddressOwner } from "../custom-urls/address-owner.js";
import type { EngineContext } from "../deps.js";
import { invalidField } from "../errors.js";
import { defineOperation } from "../operation.js";
import { canonicalLanguage, siteLanguages } from "../posts/post-language.js";
import type { PostRow } from "../posts/post-query.js";
import { activeGroupOf } from "../posts/translation-group.js";
import { translationResolutionOutput } from "./translation-output.js";
import { rootOf } from "./translation-root.js";
import { resolveTranslationInput } from "./translation-schemas.js";
import { type CandidateEntry, toCandidateEntry } from "./translation-view.js";

/** What an address is to a post looking for its translation. @see docs/languages.md § Resolving an address */
export type ResolutionKind =
  | "ok"
  | "external"
  | "not_found"
  | "not_a_post"
  | "same_thread"
  | "unpublished"
  | "no_language"
  | "same_language"
  | "language_taken"
  | "group_conflict"
  | "group_language_taken";

/** The answer of `translations.resolve`. */
export interface TranslationResolution {
  kind: ResolutionKind;
  /** The address looked up last (`/slug`, after the prefixes and redirects), or the URL as sent when external. */
  address: string;
  /** The Thread root the address names, when it names a post. */
  candidate: CandidateEntry | null;
  /** `group_conflict` and `group_language_taken` only: the language in the way. */
  language?: string;
}

/** Redirects followed before an address is given up as `not_found` (a loop ends here too). */
const maxRedirects = 5;

/**
 * Reads a URL or path a site owner pasted (the address of a post on this site, possibly a reply,
 * a custom URL or a redirect, with or without the site path prefix and a language prefix) and says
 * whether its Thread could be linked as a translation of post `id`, and if not, why.
 * @see spec § Language and translations (resolve)
 */
export const resolveTranslation = defineOperation({
  id: "translations.resolve",
  access: "owner",
  description:
    "Resolves a URL or path on this site to its Thread and says whether it can be linked as a translation of this post.",
  hints: { readOnly: true },
  input: resolveTranslationInput,
  output: translationResolutionOutput,
  run: async (ctx, input): Promise<{ resolution: TranslationResolution }> => {
    const root = await rootOf(ctx.db, input.id);
    return { resolution: await resolve(ctx, root, input.url) };
  },
});

async function resolve(ctx: EngineContext, root: PostRow, url: string): Promise<TranslationResolution> {
  let path = onSitePath(ctx, url);
  if (path === null) return { kind: "external", address: url, candidate: null };
  for (let hop = 0; hop <= maxRedirects; hop++) {
    const address = addressOf(ctx, path);
    if (address === null) return { kind: "not_found", address: path, candidate: null };
    if (address === "") return { kind: "not_a_post", address: "/", candidate: null };
    const found = await lookUp(ctx, address);
    if (!found) return { kind: "not_found", address: `/${address}`, candidate: null };
    const { owner, at } = found;
    if (owner.type === "redirect") {
      const next = onSitePath(ctx, owner.toPath);
      if (next === null) return { kind: "external", address: owner.toPath, candidate: null };
      path = next;
      continue;
    }
    if (owner.type !== "post") return { kind: "not_a_post", address: at, candidate: null };
    const target = await rootOf(ctx.db, owner.id);
    return { ...(await judge(ctx, root, target)), address: at, candidate: toCandidateEntry(target) };
  }
  return { kind: "not_found", address: path, candidate: null };
}

/** Whether root `target` could join root `root` as a translation (spec § Translation group). */
async function judge(
  ctx: EngineContext,
  root: PostRow,
  target: PostRow,
): Promise<{ kind: ResolutionKind; language?: string }> {
  if (target.id === root.id) return { kind: "same_thread" };
  if (target.status !== "published") return { kind: "unpublished" };
  if (root.language === null || target.language === null) return { kind: "no_language" };
  if (root.language === target.language) return { kind: "same_language" };
  const rootGroup = await activeGroupOf(ctx.db, root);
  const targetGroup = await activeGroupOf(ctx.db, target);
  // Both in groups, one and the same included: a link would be 409.
  if (rootGroup && targetGroup) return { kind: "group_conflict", language: target.language };
  if (rootGroup?.members.some((m) => m.language === target.language)) return { kind: "language_taken" };
  if (targetGroup?.members.some((m) => m.language === root.language)) {
    return { kind: "group_language_taken", language: root.language };
  }
  return { kind: "ok" };
}

/**
 * The path of a URL on this site, or null for another site's. A path (`/x`, or `x`) is this site's;
 * a full URL is when it is `http(s)` and its origin is the one the request came to (the adapter's
 * `siteOrigin`); in-process without one, any `http(s)` URL is read by its path.
 */
function onSitePath(ctx: EngineContext, url: string): string | null {
  if (url.startsWith("//") || /^[A-Za-z][A-Za-z0-9+.-]*:/.test(url)) {
    let parsed: URL;
    try {
      parsed = new URL(url.startsWith("//") ? `https:${url}` : url);
    } catch {
      throw invalidField("url", "Expected a path or a full URL on this site");
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return null;
    const origin = ctx.links?.siteOrigin;
    if (origin !== undefined && parsed.origin !== origin) return null;
    return parsed.pathname;
  }
  const path = url.replace(/[?#].*$/, "");
  return path.startsWith("/") ? path : `/${path}`;
}

/**
 * The address a path names (no leading slash; "" for the home page), without the site path
 * prefix when it carries it; null when it cannot be decoded.
 */
function addressOf(ctx: EngineContext, path: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURI(path.replace(/[?#].*$/, ""));
  } catch {
    return null;
  }
  const prefix = ctx.settings.sitePathPrefix.trim().replace(/\/+$/, "");
  const withSlash = prefix === "" || prefix.startsWith("/") ? prefix : `/${prefix}`;
  if (withSlash !== "" && (decoded === withSlash || decoded.startsWith(`${withSlash}/`))) {
    decoded = decoded.slice(withSlash.length);
  }
  return decoded.replace(/^\/+/, "").replace(/\/+$/, "");
}

/**
 * Who holds an address: as written, else without a leading language segment of the site's
 * languages (`fr/hello` → `hello`). Returns the address that answered, with its slash.
 */
async function lookUp(ctx: EngineContext, address: string) {
  const owner = await findAddressOwner(ctx.db, address);
  if (owner) return { owner, at: `/${address}` };
  const slash = address.indexOf("/");
  if (slash <= 0) return undefined;
  const first = canonicalLanguage(address.slice(0, slash));
  if (first === undefined || !siteLanguages(ctx.settings).includes(first)) return undefined;
  const rest = address.slice(slash + 1);
  const stripped = rest === "" ? undefined : await findAddressOwner(ctx.db, rest);
  return stripped ? { owner: stripped, at: `/${rest}` } : undefined;
}
