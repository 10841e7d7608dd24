/**
 * Throws unless `key` is a plain relative key. S3 keys are opaque, but the engine's keys never
 * need `..`, empty segments or control characters, and proxies in front of S3-compatible stores
 * may normalise such paths onto another object.
 */
export function assertKey(key: string): void {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we refuse
  if (key.length === 0 || key.length > 1024 || key.includes("\\") || /[\u0000-\u001f\u007f]/.test(key)) {
    throw invalidKey(key);
  }
  for (const segment of key.split("/")) {
    if (segment === "" || segment === "." || segment === "..") throw invalidKey(key);
  }
}

function invalidKey(key: string): Error {
  return new Error(`invalid storage key ${JSON.stringify(key)}`);
}

/** `base/key` with each key segment URL-encoded. */
export function joinUrl(base: string, key: string): string {
  return `${base.replace(/\/+$/, "")}/${key.split("/").map(encodeURIComponent).join("/")}`;
}
