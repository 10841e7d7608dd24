/**
 * Reads a post's Markdown bundle page back: the front matter the Hugo export writes (one
 * `key: value` per line, each value JSON, which YAML reads as is; export/hugo-export.ts) and the body
 * after it. Hand edits in the simple YAML most people write are read too: a plain or single-quoted
 * scalar (`title: My post`), and the `params` map written as indented `key: value` lines. Anything
 * else (anchors, multi-line scalars, flow maps spread over lines) is not read: the page is
 * rejected with the reason and nothing of it is applied.
 */
export interface BundlePage {
  front: Record<string, unknown>;
  body: string;
}

/** The page, or a reason it cannot be read. */
export function parseBundlePage(text: string): BundlePage | { error: string } {
  const normalized = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  if (!normalized.startsWith("---\n")) return { error: "The page does not start with front matter (---)" };
  const end = normalized.indexOf("\n---", 3);
  if (end < 0 || (normalized[end + 4] !== undefined && normalized[end + 4] !== "\n"))
    return { error: "The front matter is not closed (---)" };
  const head = normalized.slice(4, end);
  const body = normalized.slice(end + 5);
  const front: Record<string, unknown> = {};
  let nested: Record<string, unknown> | null = null;
  for (const [index, line] of head.split("\n").entries()) {
    if (line.trim() === "" || line.trimStart().startsWith("#")) continue;
    const indented = /^\s+/.test(line);
    const match = /^\s*([A-Za-z_][\w-]*)\s*:(?:\s+(.*))?$/.exec(line);
    if (!match) return { error: `Front matter line ${index + 2} is not "key: value"` };
    const key = match[1] as string;
    const raw = (match[2] ?? "").trim();
    if (indented) {
      if (!nested) return { error: `Front matter line ${index + 2} is indented under no key` };
      const value = scalar(raw);
      if (value === invalid) return { error: `Front matter line ${index + 2}: the value cannot be read` };
      setOwn(nested, key, value);
      continue;
    }
    nested = null;
    if (raw === "") {
      nested = {};
      setOwn(front, key, nested);
      continue;
    }
    const value = scalar(raw);
    if (value === invalid) return { error: `Front matter line ${index + 2}: the value cannot be read` };
    setOwn(front, key, value);
  }
  return { front, body };
}

/**
 * Sets `key` as an own property, as `JSON.parse` does: a key typed `__proto__` is a key like any
 * other (an assignment would make its map the prototype, whose keys the page would then seem to
 * hold).
 */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

const invalid = Symbol("invalid");

/** One value: JSON (what the export writes), YAML's single-quoted text, null/true/false, or plain text. */
function scalar(raw: string): unknown {
  if (raw.startsWith("'")) {
    if (!raw.endsWith("'") || raw.length < 2) return invalid;
    return raw.slice(1, -1).replace(/''/g, "'");
  }
  if (raw === "~" || raw === "null") return null;
  if (/^[[{"]|^-?\d|^(true|false)$/.test(raw)) {
    try {
      return JSON.parse(raw);
    } catch {
      if (/^[[{"]/.test(raw)) return invalid;
    }
  }
  if (/^[|>&*!%@`]/.test(raw)) return invalid;
  // A plain scalar ends where a comment starts.
  return raw.replace(/\s+#.*$/, "");
}
