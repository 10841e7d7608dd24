import path from "node:path";

/** The folder under the root that holds temp files and multipart parts; no key may start with it. */
export const TMP_DIR = ".tmp";

/**
 * Resolves a key to a path inside `root`, or throws. Keys are `/`-separated relative paths; an
 * absolute key, an empty, `.` or `..` segment, a backslash, a control character (NUL included) or
 * a first segment of `.tmp` is refused before the disk is touched.
 */
export function resolveKey(root: string, key: string): string {
  assertKey(key);
  const target = path.resolve(root, ...key.split("/"));
  // Belt and braces: whatever the checks above missed, nothing outside root is ever returned.
  if (!target.startsWith(root + path.sep)) throw invalidKey(key);
  return target;
}

/** Throws unless `key` is a safe relative object key. */
export function assertKey(key: string): void {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we refuse
  if (key.length === 0 || key.includes("\\") || /[\u0000-\u001f\u007f]/.test(key)) throw invalidKey(key);
  const segments = key.split("/");
  if (segments[0] === TMP_DIR) throw invalidKey(key);
  for (const segment of segments) {
    if (segment === "" || segment === "." || segment === "..") throw invalidKey(key);
  }
}

function invalidKey(key: string): Error {
  return new Error(`invalid storage key ${JSON.stringify(key)}`);
}
