import type { CollectionView } from "../collections/collection-view.js";
import { toCollectionView } from "../collections/collection-view.js";
import type { EngineContext } from "../deps.js";
import { defineOperation, type OperationContext } from "../operation.js";
import { readablePostView } from "../posts/get-public-post.js";
import { findReadablePostById } from "../posts/post-query.js";
import type { PublicPostView } from "../posts/post-view.js";
import { type SmartCollection, toSmartCollection } from "../smart-collections/smart-collection-view.js";
import { findAddressOwner } from "./address-owner.js";
import { oldestAliasesOf } from "./aliases.js";
import { resolutionOutput } from "./custom-url-output.js";
import { resolveAddressInput } from "./custom-url-schemas.js";

/**
 * What a public path is, as a visitor sees the site. `path` is the path that was looked up
 * (normalised: no query, fragment or trailing slash; site path prefix included); `canonicalPath`
 * and `location` include the prefix too, except a redirect to an absolute URL.
 * @see docs/custom-urls.md § Resolving an address
 */
export type Resolution =
  | { kind: "post"; path: string; canonicalPath: string; post: PublicPostView }
  | { kind: "collection"; path: string; canonicalPath: string; collection: CollectionView }
  | { kind: "smart_collection"; path: string; canonicalPath: string; smartCollection: SmartCollection }
  | { kind: "redirect"; path: string; location: string; status: 301 | 302; reason: "redirect" | "canonical" }
  | { kind: "not_found"; path: string };

/**
 * Resolves a public path to what lives there: a post (reading view), a collection, a smart
 * collection, a redirect, or nothing. Always answers as an anonymous reader, whoever calls: drafts,
 * private Threads and replies of unpublished roots are `not_found`, exactly like an address nobody
 * holds. Another address of something that lives elsewhere (a post's slug or newer alias when its
 * oldest custom URL is its permalink) is a 301 redirect to where it lives. A path outside the site
 * path prefix, the bare root, and any path whose first segment starts with `_` or `.` are
 * `not_found`. @see spec § Custom URL, § Public post (permalink)
 */
export const resolveAddress = defineOperation({
  id: "addresses.resolve",
  access: "public",
  description:
    "Resolves a public path (with the site path prefix) to the post, collection, smart collection or redirect there.",
  hints: { readOnly: true },
  input: resolveAddressInput,
  output: resolutionOutput,
  run: async (ctx, input): Promise<Resolution> => {
    const prefix = normalizePrefix(ctx.settings.sitePathPrefix);
    const address = addressOf(input.path, prefix);
    const path = address === null ? input.path : `${prefix}/${address}`;
    if (address === null) return { kind: "not_found", path };
    const owner = await findAddressOwner(ctx.db, address);
    const at = { path, address: `/${address}`, prefix };
    switch (owner?.type) {
      case "post":
        return resolvePost(ctx, owner.id, at);
      case "collection":
        return resolveCollection(ctx, owner.id, at);
      case "smart_collection":
        return resolveSmartCollection(ctx, owner.id, at);
      case "redirect": {
        // A stored redirect: an on-site destination gets the site path prefix, a URL stays as it is.
        const location = owner.toPath.startsWith("/") ? `${prefix}${owner.toPath}` : owner.toPath;
        return { kind: "redirect", path, location, status: owner.status, reason: "redirect" };
      }
      default:
        return { kind: "not_found", path };
    }
  },
});

/** Where a lookup stands: the path answered, the address looked up (`/x`), the site's prefix. */
interface At {
  path: string;
  address: string;
  prefix: string;
}

async function resolvePost(ctx: OperationContext, postId: string, at: At): Promise<Resolution> {
  // The public reader's rule and view (posts/get-public-post.ts) decide what a visitor may see, so
  // resolve can never say more than it: a post readers may not see is not_found.
  const row = await findReadablePostById(ctx.db, postId);
  if (!row) return { kind: "not_found", path: at.path };
  const post = await readablePostView(ctx, row, { content: undefined });
  return lives(at, row.permalink_path ?? `/${row.slug}`, (canonicalPath) => ({
    kind: "post",
    path: at.path,
    canonicalPath,
    post,
  }));
}

async function resolveCollection(ctx: EngineContext, collectionId: string, at: At): Promise<Resolution> {
  const row = await ctx.db
    .selectFrom("collections")
    .selectAll()
    .where("id", "=", collectionId)
    .executeTakeFirst();
  if (!row) return { kind: "not_found", path: at.path };
  const aliases = await oldestAliasesOf(ctx.db, { targetType: "collection", targetIds: [row.id] });
  return lives(at, aliases.get(row.id) ?? `/${row.slug}`, (canonicalPath) => ({
    kind: "collection",
    path: at.path,
    canonicalPath,
    collection: toCollectionView(row),
  }));
}

async function resolveSmartCollection(ctx: EngineContext, id: string, at: At): Promise<Resolution> {
  const row = await ctx.db
    .selectFrom("smart_collections")
    .selectAll()
    .where("id", "=", id)
    .executeTakeFirst();
  if (!row) return { kind: "not_found", path: at.path };
  return lives(at, `/${row.slug}`, (canonicalPath) => ({
    kind: "smart_collection",
    path: at.path,
    canonicalPath,
    smartCollection: toSmartCollection(row),
  }));
}

/** The answer for something whose own address is `canonical`: itself there, else a 301 to it. */
function lives(at: At, canonical: string, answer: (canonicalPath: string) => Resolution): Resolution {
  const canonicalPath = `${at.prefix}${canonical}`;
  if (canonical === at.address) return answer(canonicalPath);
  return { kind: "redirect", path: at.path, location: canonicalPath, status: 301, reason: "canonical" };
}

/**
 * The address (no leading slash) a requested path names, or null when nothing can live there:
 * outside the site path prefix, the root, undecodable, or a first segment starting with `_` or `.`
 * (spec § Custom URL). A query, a fragment and trailing slashes are ignored.
 */
function addressOf(requested: string, prefix: string): string | null {
  let path = requested.replace(/[?#].*$/, "");
  if (!path.startsWith("/")) path = `/${path}`;
  try {
    path = decodeURI(path);
  } catch {
    return null;
  }
  if (prefix !== "") {
    if (path === prefix) return null;
    if (!path.startsWith(`${prefix}/`)) return null;
    path = path.slice(prefix.length);
  }
  const address = path.replace(/^\/+/, "").replace(/\/+$/, "");
  if (address === "") return null;
  const first = address.split("/")[0] ?? "";
  if (first.startsWith("_") || first.startsWith(".")) return null;
  return address;
}

/** `SITE_PATH_PREFIX` as "" or `/blog` (no trailing slash), however it was written. */
function normalizePrefix(prefix: string): string {
  const trimmed = prefix.trim().replace(/\/+$/, "");
  return trimmed === "" ? "" : trimmed.startsWith("/") ? trimmed : `/${trimmed}`;
}
