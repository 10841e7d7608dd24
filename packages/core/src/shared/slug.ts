import slugifyText from "@sindresorhus/slugify";

/** Longest slug the engine stores or generates. */
export const maxSlugLength = 200;
const generatedSlugLength = 80;

/** True for a well-formed slug: lowercase a–z, 0–9 and inner hyphens. @see spec § Slugs and paths */
export function isValidSlug(slug: string): boolean {
  return slug.length <= maxSlugLength && /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/.test(slug);
}

/** A slug-shaped form of any text (transliterated, lowercase, hyphenated); may be empty. */
export function slugify(text: string, maxLength = generatedSlugLength): string {
  const slug = slugifyText(text);
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
