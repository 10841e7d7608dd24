import { invalidField } from "../errors.js";
import { isValidPostPath, maxSlugLength } from "../shared/slug.js";
import { checkNotReserved } from "./reserved-addresses.js";

/** Longest redirect destination (`toPath`), an on-site path or an absolute URL. */
export const maxToPathLength = 2048;

/**
 * A custom URL `path` as sent (leading slash optional) → the stored form with one leading slash.
 * The rules are those of a post's `path`, so every address a client claims obeys one grammar: a
 * reserved first segment (or one starting with `_` or `.`) is 400, then a letter or digit, then
 * lowercase letters, digits, `-`, `.` and `/`, no empty, `.` or `..` segment, at most 200
 * characters without the slash. @see spec § Slugs and paths rule 3, § Custom URL
 */
export function normalizeCustomUrlPath(path: string, field = "path"): string {
  const bare = path.startsWith("/") ? path.slice(1) : path;
  checkNotReserved(bare, field);
  if (bare.length > maxSlugLength) {
    throw invalidField(field, `At most ${maxSlugLength} characters after the leading slash`);
  }
  if (!isValidPostPath(bare)) {
    throw invalidField(
      field,
      "Start with a letter or digit, then use lowercase letters, digits, -, . and /, with no empty segment",
    );
  }
  return `/${bare}`;
}

/** The address a stored custom URL path holds in `site_addresses` (no leading slash). */
export function addressOfPath(path: string): string {
  return path.startsWith("/") ? path.slice(1) : path;
}

/**
 * A redirect destination as sent → as stored: an absolute `http:`/`https:` URL stays as it is; any
 * other value is a path on the site, given a leading slash when it has none (the site path prefix
 * is added when the redirect is served, never stored). Refused (400 on `field`): other schemes,
 * protocol-relative `//host`, backslashes, whitespace and control characters, over 2048 characters.
 */
export function normalizeToPath(toPath: string, field = "toPath"): string {
  if (toPath.length === 0) throw invalidField(field, "Must not be empty");
  if (toPath.length > maxToPathLength) throw invalidField(field, `At most ${maxToPathLength} characters`);
  // Control characters and whitespace never belong in a Location header.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to refuse them
  if (/[\s\u0000-\u001f\u007f\\]/.test(toPath)) {
    throw invalidField(field, "Must not contain whitespace, control characters or backslashes");
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(toPath)) {
    let url: URL;
    try {
      url = new URL(toPath);
    } catch {
      throw invalidField(field, "Expected a path on the site or an absolute http: or https: URL");
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw invalidField(field, "Only http: and https: URLs may be redirect destinations");
    }
    return toPath;
  }
  if (toPath.startsWith("//")) {
    throw invalidField(field, "A protocol-relative address is ambiguous; write https://host/… instead");
  }
  return toPath.startsWith("/") ? toPath : `/${toPath}`;
}

/** True when an on-site `toPath` names `path` itself (query, fragment and trailing slashes aside). */
export function isSelfRedirect(path: string, toPath: string): boolean {
  if (!toPath.startsWith("/")) return false;
  const bare = toPath.replace(/[?#].*$/, "").replace(/\/+$/, "");
  return bare === path;
}
