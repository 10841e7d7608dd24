/**
 * Telegram message text with its formatting entities → Markdown (CommonMark with GFM
 * strikethrough), as the post body. Offsets and lengths are UTF-16 code units, as the Bot API
 * defines them (https://core.telegram.org/api/entities#entity-length), which is how JavaScript
 * strings index, so the text is sliced as it is. Entities nest (bold inside a link); one that
 * crosses the end of its enclosing entity is cut there, one that points outside the text is
 * dropped. @see docs/telegram.md § Formatting
 */

/** A MessageEntity as the Bot API sends it (https://core.telegram.org/bots/api#messageentity). */
export interface MessageEntity {
  type: string;
  offset: number;
  length: number;
  url?: string | undefined;
  language?: string | undefined;
}

interface Node {
  entity: MessageEntity | null;
  start: number;
  end: number;
  children: Node[];
}

/** The Markdown of a message's text (or a media caption) and its entities. */
export function entitiesToMarkdown(text: string, entities: readonly MessageEntity[] | undefined): string {
  const root: Node = { entity: null, start: 0, end: text.length, children: [] };
  const valid = (entities ?? [])
    .filter(
      (e) =>
        Number.isInteger(e.offset) &&
        Number.isInteger(e.length) &&
        e.offset >= 0 &&
        e.length > 0 &&
        e.offset < text.length,
    )
    .map((e, index) => ({ e, index }))
    .sort((a, b) => a.e.offset - b.e.offset || b.e.length - a.e.length || a.index - b.index);
  const stack: Node[] = [root];
  for (const { e } of valid) {
    while (stack.length > 1 && (stack[stack.length - 1] as Node).end <= e.offset) stack.pop();
    const parent = stack[stack.length - 1] as Node;
    const node: Node = {
      entity: e,
      start: e.offset,
      end: Math.min(e.offset + e.length, parent.end),
      children: [],
    };
    if (node.end <= node.start) continue;
    parent.children.push(node);
    stack.push(node);
  }
  const blockEdges = new Set<number>();
  const collect = (node: Node) => {
    if (node.entity && ["pre", "blockquote", "expandable_blockquote"].includes(node.entity.type)) {
      blockEdges.add(node.start - 1);
      blockEdges.add(node.end);
    }
    for (const child of node.children) collect(child);
  };
  collect(root);
  return render({ text, blockEdges }, root)
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/** The text being converted, and where blocks begin and end (a line break there is no hard break). */
interface Source {
  text: string;
  /** The index of the line break before a block, and the index just after a block. */
  blockEdges: Set<number>;
}

function render(source: Source, node: Node): string {
  const { text } = source;
  const type = node.entity?.type;
  if (type === "code" || type === "pre") return wrap(text, node, text.slice(node.start, node.end));
  let out = "";
  let at = node.start;
  for (const child of node.children) {
    out += escapePlain(source, at, child.start);
    out += render(source, child);
    at = child.end;
  }
  out += escapePlain(source, at, node.end);
  return node.entity ? wrap(text, node, out) : out;
}

function wrap(text: string, node: Node, inner: string): string {
  const entity = node.entity as MessageEntity;
  const raw = text.slice(node.start, node.end);
  switch (entity.type) {
    case "bold":
      return emphasis(inner, "**");
    case "italic":
      return emphasis(inner, "*");
    case "strikethrough":
      return emphasis(inner, "~~");
    case "code":
      return codeSpan(raw);
    case "pre":
      return block(text, node, fencedCode(raw, entity.language));
    case "blockquote":
    case "expandable_blockquote":
      return block(
        text,
        node,
        inner
          .split("\n")
          .map((line) => (line === "" ? ">" : `> ${line}`))
          .join("\n"),
      );
    case "text_link":
      return entity.url && isWebLink(entity.url) ? `[${inner}](${linkTarget(entity.url)})` : inner;
    case "url":
      if (/^https?:\/\/[^\s<>]+$/i.test(raw)) return `<${raw}>`;
      if (/^[^\s<>/:]+\.[^\s<>]+$/.test(raw)) return `[${inner}](${linkTarget(`https://${raw}`)})`;
      return inner;
    case "email":
      return /^[^\s<>@]+@[^\s<>@]+$/.test(raw) ? `<${raw}>` : inner;
    default:
      // underline, spoiler, mention, hashtag, cashtag, bot_command, phone_number, text_mention,
      // custom_emoji and types added later: Markdown has no mark for them; their text stays.
      return inner;
  }
}

/** Emphasis marks around the text, with its outer whitespace moved outside (`** x**` is not bold). */
function emphasis(inner: string, mark: string): string {
  const match = /^(\s*)([\s\S]*?)(\s*)$/.exec(inner) as RegExpExecArray;
  const [, lead, body, trail] = match as unknown as [string, string, string, string];
  if (body === "") return inner;
  return `${lead}${mark}${body}${mark}${trail}`;
}

function codeSpan(raw: string): string {
  const longest = Math.max(0, ...[...raw.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(longest + 1);
  const pad = raw.startsWith("`") || raw.endsWith("`") ? " " : "";
  return `${fence}${pad}${raw.replace(/\n/g, " ")}${pad}${fence}`;
}

function fencedCode(raw: string, language: string | undefined): string {
  const longest = Math.max(2, ...[...raw.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(longest + 1);
  const info = language && /^[\w+#.-]{1,50}$/.test(language) ? language : "";
  return `${fence}${info}\n${raw.replace(/\n$/, "")}\n${fence}`;
}

/** A block on lines of its own: a blank line before and after unless the text starts or ends there. */
function block(text: string, node: Node, body: string): string {
  const before = node.start === 0 ? "" : text[node.start - 1] === "\n" ? "\n" : "\n\n";
  const after = node.end >= text.length ? "" : text[node.end] === "\n" ? "\n" : "\n\n";
  return `${before}${body}${after}`;
}

function isWebLink(url: string): boolean {
  try {
    return ["http:", "https:", "mailto:"].includes(new URL(url).protocol);
  } catch {
    return false;
  }
}

function linkTarget(url: string): string {
  return url.replace(/[()\s<>]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`);
}

/**
 * Plain text from `from` to `to`, escaped so that Markdown reads it as the same text: inline marks
 * anywhere, block marks at the start of a line; a single line break becomes a hard break (a chat
 * shows it as one).
 */
function escapePlain(source: Source, from: number, to: number): string {
  const { text, blockEdges } = source;
  let out = "";
  for (let i = from; i < to; i++) {
    const c = text[i] as string;
    const lineStart = i === 0 || text[i - 1] === "\n";
    if (c === "\n") {
      const single =
        text[i - 1] !== "\n" && text[i + 1] !== "\n" && i > 0 && i + 1 < text.length && !blockEdges.has(i);
      out += single ? "\\\n" : "\n";
    } else if ("\\`*_[]<>~|".includes(c)) {
      out += `\\${c}`;
    } else if (c === "&" && /^&(#\d+|#x[0-9a-f]+|\w+);/i.test(text.slice(i, i + 12))) {
      out += "\\&";
    } else if (lineStart && "#>-+=".includes(c)) {
      out += `\\${c}`;
    } else if (lineStart && /\d/.test(c)) {
      const digits = /^\d{1,9}[.)]/.exec(text.slice(i, to));
      if (digits) {
        out += `${digits[0].slice(0, -1)}\\${digits[0].slice(-1)}`;
        i += digits[0].length - 1;
      } else out += c;
    } else {
      out += c;
    }
  }
  return out;
}
