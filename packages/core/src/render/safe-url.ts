/**
 * The URL schemes a link or image may use; anything else with a scheme is dropped. These match
 * hast-util-sanitize's default schema, so the stored document never holds a URL that `bodyHtml`
 * would strip. URLs without a scheme (relative, `#anchor`, `//host`) are allowed.
 */
const allowedSchemes = {
  href: ["http", "https", "mailto", "xmpp", "irc", "ircs"],
  src: ["http", "https"],
} as const;

/** Whether `url` may be stored and rendered as a link `href` or an image `src`. */
export function isSafeUrl(url: string, kind: keyof typeof allowedSchemes): boolean {
  const colon = url.indexOf(":");
  if (colon === -1) return true;
  const pathStart = url.search(/[/?#]/);
  if (pathStart !== -1 && pathStart < colon) return true;
  const scheme = url.slice(0, colon).toLowerCase();
  return (allowedSchemes[kind] as readonly string[]).includes(scheme);
}
