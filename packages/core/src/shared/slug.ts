import slugifyText from "@sindresorhus/slugify";

/** Longest slug the engine stores or generates. */
export const maxSlugLength = 200;
const generatedSlugLength = 80;

/** True for a well-formed slug: lowercase a–z, 0–9 and inner hyphens. @see spec § Slugs and paths */
export function isValidSlug(slug: string): boolean {
  return slug.length <= maxSlugLength && /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/.test(slug);
}

/**
 * Printable ASCII that @sindresorhus/slugify changes only by case and separators: without `&` (it
 * becomes " and "), `^` and `` ` `` (dropped as diacritics), `'` (contractions lose it) and `\`
 * (removed).
 */
const plainAscii = /^[\x20-\x25\x28-\x5b\x5d\x5f\x61-\x7e]*$/;

/**
 * The library's slug, computed directly for {@link plainAscii} text (what titles mostly are):
 * lower-cased, every run of other characters one hyphen, none at either end. The library builds
 * its replacement map and runs about a dozen whole-string passes per call (about 4 µs for a
 * bench:write title, against 0.4 µs here); `slug.test.ts` checks the two agree.
 */
function slugifyPlain(text: string): string | undefined {
  if (!plainAscii.test(text)) return undefined;
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
}

/**
 * The library's options: words are not parted at capitals (its default would make "GitHub
 * Actions" `git-hub-actions` and "PostgreSQL" `postgre-sql`, where WordPress and Ghost write
 * `github-actions`).
 */
export const slugifyOptions = { decamelize: false } as const;

/**
 * A slug-shaped form of any text (transliterated, lowercase, hyphenated); may be empty. Text is
 * folded to its compatibility form first (NFKC), so full-width letters, ligatures and digraphs
 * (`ＡＢＣ`, `ﬀ`, `ǅ`) become the letters the transliteration knows rather than nothing.
 */
export function slugify(text: string, maxLength = generatedSlugLength): string {
  const slug = slugifyPlain(text) ?? slugifyText(text.normalize("NFKC"), slugifyOptions);
  if (slug.length <= maxLength) return slug;
  const cut = slug.slice(0, maxLength);
  const lastHyphen = cut.lastIndexOf("-");
  return (lastHyphen > maxLength / 2 ? cut.slice(0, lastHyphen) : cut).replace(/-+$/, "");
}

/** True for a create-time post `path`: a letter or digit, then lowercase letters, digits, `-`, `.`, `/`. */
export function isValidPostPath(path: string): boolean {
  return (
    path.length <= maxSlugLength &&
    /^[a-z0-9][a-z0-9./-]*$/.test(path) &&
    !path.split("/").some((segment) => segment === "" || segment === "." || segment === "..")
  );
}
