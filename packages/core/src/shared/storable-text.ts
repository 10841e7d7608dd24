/** Half of a UTF-16 surrogate pair without its other half: not a character, and not valid UTF-8. */
const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Why no database stores `text` as sent ("Text may not contain …"), or null. PostgreSQL cannot
 * store NUL in text, and each driver replaces a lone surrogate its own way (SQLite kept three
 * U+FFFD, PostgreSQL one), so both are refused on every surface and both databases alike.
 */
export function unstorableText(text: string): string | null {
  if (text.includes("\u0000")) return "Text may not contain NUL characters";
  if (loneSurrogate.test(text)) return "Text may not contain unpaired surrogates";
  return null;
}

/**
 * The path (`a.b.0`) of the first string in `value` that {@link unstorableText} refuses, with
 * why; or null. Objects `opaque` accepts are skipped, and so is anything nested deeper than
 * `maxDepth`.
 */
export function findUnstorableText(
  value: unknown,
  options: { maxDepth: number; opaque?: (value: object) => boolean },
  path = "",
  depth = 0,
): { path: string; message: string } | null {
  if (typeof value === "string") {
    const message = unstorableText(value);
    return message === null ? null : { path, message };
  }
  if (typeof value !== "object" || value === null || depth > options.maxDepth) return null;
  if (options.opaque?.(value)) return null;
  for (const [key, item] of Object.entries(value)) {
    const found = findUnstorableText(item, options, path === "" ? key : `${path}.${key}`, depth + 1);
    if (found !== null) return found;
  }
  return null;
}
