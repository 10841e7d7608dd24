import { claimAddress, claimGeneratedAddress } from "../custom-urls/addresses.js";
import { checkNotReserved, isReservedAddress } from "../custom-urls/reserved-addresses.js";
import { compiled } from "../db/compiled.js";
import type { EngineContext } from "../deps.js";
import { invalidField } from "../errors.js";
import { type RenderedBody, renderEditorDoc, renderMarkdown } from "../render/index.js";
import { isValidPostPath, isValidSlug, slugify } from "../shared/slug.js";

/**
 * Renders the body a request sent: `bodyMarkdown` or editor `body`; null clears; undefined keeps.
 * Render on write: reads never render.
 */
export function renderBodyInput(input: {
  body?: string | null | undefined;
  bodyMarkdown?: string | null | undefined;
}): RenderedBody | null | undefined {
  if (typeof input.bodyMarkdown === "string") return renderMarkdown(input.bodyMarkdown);
  if (typeof input.body === "string") return renderEditorDoc(input.body);
  if (input.body === null || input.bodyMarkdown === null) return null;
  return undefined;
}

const displayTitleLength = 80;

/** A post's short plain-text name: its title, else one derived from its text. */
export function deriveDisplayTitle(post: {
  title: string | null;
  bodyText: string | null;
  quoteText: string | null;
  url: string | null;
}): string {
  const title = post.title?.trim();
  if (title) return title;
  const text = (post.bodyText ?? "").trim() || (post.quoteText ?? "").trim();
  const firstLine = text
    .split("\n")
    .find((line) => line.trim() !== "")
    ?.replace(/\s+/g, " ")
    .trim();
  if (firstLine) return truncateAtWord(firstLine, displayTitleLength);
  return post.url ?? "Untitled";
}

function truncateAtWord(text: string, max: number): string {
  const chars = [...text];
  if (chars.length <= max) return text;
  const cut = chars.slice(0, max - 1).join("");
  const lastSpace = cut.lastIndexOf(" ");
  return `${(lastSpace > max / 2 ? cut.slice(0, lastSpace) : cut).trimEnd()}…`;
}

/** Checks a requested slug: well-formed and not reserved. @see spec § Errors condition 2 */
export function checkSlugCandidate(slug: string, field = "slug"): void {
  if (!isValidSlug(slug)) throw invalidField(field, "Use only lowercase a-z, 0-9 and inner hyphens");
  checkNotReserved(slug, field);
}

/**
 * Claims a new post's address inside its transaction and returns the canonical slug and, for a
 * `path` that is not itself a slug, the alias path the caller stores once the post exists. A
 * requested slug or path that is reserved is 400, one that is taken CONFLICT; a generated slug
 * takes the next free candidate instead.
 * @see spec § Slugs and paths, docs/reliability.md § Generated addresses
 */
export async function claimNewSlug(
  ctx: Pick<EngineContext, "db">,
  input: {
    id: string;
    slug?: string | undefined;
    path?: string | undefined;
    nameForSlug: string;
    fallback: string;
  },
): Promise<{ slug: string; aliasPath: string | null }> {
  const claim = (path: string, field: string) =>
    claimAddress(ctx, { path, ownerType: "post", ownerId: input.id, field });
  if (input.slug !== undefined) {
    checkSlugCandidate(input.slug);
    await claim(input.slug, "slug");
    return { slug: input.slug, aliasPath: null };
  }
  if (input.path !== undefined) {
    const fromPath = slugFromPath(input.path);
    await claim(fromPath.slug, "path");
    return fromPath;
  }
  const base = generatedSlugBase(input);
  // Most generated slugs are free: one conditional insert takes the base, and only a taken one
  // pays for the candidate read. The outcome is the same: the base is the first candidate.
  if (await claimIfFree(ctx, base, input.id)) return { slug: base, aliasPath: null };
  const slug = await claimGeneratedAddress(ctx, {
    base,
    fallbackSuffix: input.id.slice(-8),
    ownerType: "post",
    ownerId: input.id,
  });
  return { slug, aliasPath: null };
}

/**
 * The address {@link claimNewSlug} tries first for a post without `path`, checked as it would be
 * (a malformed or reserved requested slug is 400), when that try needs no database: the requested
 * slug, or the generated base when it is not reserved. Undefined otherwise.
 */
export function firstSlugCandidate(input: {
  slug?: string | undefined;
  nameForSlug: string;
  fallback: string;
}): string | undefined {
  if (input.slug !== undefined) {
    checkSlugCandidate(input.slug);
    return input.slug;
  }
  const base = generatedSlugBase(input);
  return isReservedAddress(base) ? undefined : base;
}

/** The slug made from a post's name, or with its format's name when that is empty or reserved. */
function generatedSlugBase(input: { nameForSlug: string; fallback: string }): string {
  const generated = slugify(input.nameForSlug, 60);
  return generated === "" || isReservedAddress(generated)
    ? [generated, input.fallback].filter(Boolean).join("-")
    : generated;
}

/**
 * Claims `path` for a post when it is not reserved and nobody holds it: the conditional insert of
 * claimAddress (custom-urls/addresses.ts), as a compiled statement since every create runs it.
 */
async function claimIfFree(ctx: Pick<EngineContext, "db">, path: string, ownerId: string): Promise<boolean> {
  if (isReservedAddress(path)) return false;
  return (await claimPostAddress.execute(ctx.db, { path, ownerId })).length > 0;
}

const claimPostAddress = compiled<{ path: string; ownerId: string }>()((db, p) =>
  db
    .insertInto("site_addresses")
    .values({ path: p.value("path"), owner_type: "post", owner_id: p.value("ownerId") })
    .onConflict((oc) => oc.column("path").doNothing())
    .returning("path"),
);

/** `hello-world` → slug `hello-world`; `2024/01/hello-world` → slug `2024-01-hello-world` + alias. @see spec § Slugs and paths rule 2 */
function slugFromPath(path: string): { slug: string; aliasPath: string | null } {
  if (!isValidPostPath(path)) {
    throw invalidField(
      "path",
      "Start with a letter or digit, then use lowercase letters, digits, -, . and /",
    );
  }
  checkNotReserved(path, "path");
  if (isValidSlug(path)) return { slug: path, aliasPath: null };
  const slug = slugify(path.replace(/[./]+/g, "-"), 200);
  checkSlugCandidate(slug, "path");
  return { slug, aliasPath: `/${path}` };
}
