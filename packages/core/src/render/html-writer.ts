import type { List, ListItem, Nodes, PhrasingContent, Root, RootContent, Table } from "mdast";

/**
 * An HTML writer for the trees `docToMdast` makes, writing exactly what `to-html.ts` writes with
 * mdast-util-to-hast, hast-util-sanitize (GitHub's schema) and hast-util-to-html — or nothing
 * (`undefined`) when the tree holds something it does not handle, and the libraries write it.
 *
 * Why it exists: on the 1.5 KB body of bench:write the three libraries took 0.07 ms per body (a
 * hast tree built, copied by the sanitiser, then serialised), a quarter of the render after the
 * parse once Markdown was written by hand; this writes the string directly.
 *
 * How it stays exact: it follows mdast-util-to-hast's handlers (the newlines `wrap` puts between
 * blocks, tight list items unwrapping their paragraphs, a `<br>` followed by a newline) and
 * hast-util-to-html's escaping (`<` and `&` in text, `"` and `&` in attribute values, as hexadecimal
 * references). What would make any of them do more — text whose spaces or tabs around a line
 * ending would be trimmed, a URL that would be percent-encoded or whose protocol the sanitiser
 * would drop, raw HTML or another node type — is handed back. `render-differential.test.ts`
 * compares both over thousands of documents.
 */
export function writeHtml(tree: Root): string | undefined {
  try {
    return tree.children.map(block).join("\n");
  } catch {
    // Handed back, or anything unforeseen: the libraries write the tree (and throw if it is unwritable).
    return undefined;
  }
}

/** Thrown (and caught in {@link writeHtml}) when the libraries must write the tree. */
const handBack = new Error("the libraries write this tree");

function block(node: RootContent): string {
  switch (node.type) {
    case "paragraph":
      return `<p>${phrasing(node.children)}</p>`;
    case "heading":
      return `<h${node.depth}>${phrasing(node.children)}</h${node.depth}>`;
    case "blockquote":
      return `<blockquote>${wrapLoose(node.children.map(block))}</blockquote>`;
    case "list":
      return list(node);
    case "code": {
      const language = node.lang ? node.lang.split(/\s+/)[0] : undefined;
      const attribute = language ? ` class="${attributeValue(`language-${language}`)}"` : "";
      return `<pre><code${attribute}>${text(node.value ? `${node.value}\n` : "")}</code></pre>`;
    }
    case "thematicBreak":
      return "<hr>";
    case "readMore":
      return "<!--more-->";
    case "table":
      return table(node);
    default:
      throw handBack;
  }
}

/** mdast-util-to-hast's `wrap(nodes, true)`: a newline before, between and after. */
function wrapLoose(parts: string[]): string {
  return parts.length > 0 ? `\n${parts.join("\n")}\n` : "\n";
}

function list(node: List): string {
  const tag = node.ordered ? "ol" : "ul";
  const start = typeof node.start === "number" && node.start !== 1 ? ` start="${node.start}"` : "";
  const loose = node.spread || node.children.some(itemLoose);
  const items = node.children.map((item) => listItem(item, loose));
  return `<${tag}${start}>${wrapLoose(items)}</${tag}>`;
}

function itemLoose(item: ListItem): boolean {
  return item.spread === null || item.spread === undefined ? item.children.length > 1 : item.spread;
}

function listItem(node: ListItem, loose: boolean): string {
  if (typeof node.checked === "boolean") throw handBack;
  let result = "";
  node.children.forEach((child, index) => {
    const isParagraph = child.type === "paragraph";
    if (loose || index !== 0 || !isParagraph) result += "\n";
    result += isParagraph && !loose ? phrasing(child.children) : block(child);
  });
  const tail = node.children.at(-1);
  if (tail && (loose || tail.type !== "paragraph")) result += "\n";
  return `<li>${result}</li>`;
}

function table(node: Table): string {
  const align = node.align ?? [];
  const rows = node.children.map((row, rowIndex) => {
    const tag = rowIndex === 0 ? "th" : "td";
    const length = node.align ? align.length : row.children.length;
    const cells: string[] = [];
    for (let index = 0; index < length; index++) {
      const cell = row.children[index];
      const value = align[index];
      const attribute = value ? ` align="${attributeValue(value)}"` : "";
      cells.push(`<${tag}${attribute}>${cell ? phrasing(cell.children) : ""}</${tag}>`);
    }
    return `<tr>${wrapLoose(cells)}</tr>`;
  });
  const parts: string[] = [];
  if (rows.length > 0) parts.push(`<thead>${wrapLoose(rows.slice(0, 1))}</thead>`);
  if (rows.length > 1) parts.push(`<tbody>${wrapLoose(rows.slice(1))}</tbody>`);
  return `<table>${wrapLoose(parts)}</table>`;
}

function phrasing(children: PhrasingContent[]): string {
  let result = "";
  for (let index = 0; index < children.length; index++) {
    const child = children[index]!;
    // After a break, mdast-util-to-hast trims spaces and tabs at the start of what follows.
    if (index > 0 && children[index - 1]!.type === "break" && startsWithSpace(child)) throw handBack;
    result += inline(child);
  }
  return result;
}

function startsWithSpace(node: PhrasingContent): boolean {
  const head: Nodes | undefined =
    node.type === "text" || node.type === "inlineCode" ? node : firstChild(node);
  if (head?.type !== "text" && head?.type !== "inlineCode") return false;
  return head.value.startsWith(" ") || head.value.startsWith("\t");
}

function firstChild(node: PhrasingContent): Nodes | undefined {
  return "children" in node ? node.children[0] : undefined;
}

function inline(node: PhrasingContent): string {
  switch (node.type) {
    case "text":
      // mdast-util-to-hast trims spaces and tabs around line endings; such text is handed back.
      if (/[\t\r]| \n|\n /.test(node.value)) throw handBack;
      return text(node.value);
    case "emphasis":
      return `<em>${phrasing(node.children)}</em>`;
    case "strong":
      return `<strong>${phrasing(node.children)}</strong>`;
    case "delete":
      return `<del>${phrasing(node.children)}</del>`;
    case "inlineCode":
      return `<code>${text(node.value.replace(/\r?\n|\r/g, " "))}</code>`;
    case "break":
      return "<br>\n";
    case "link": {
      let attributes = ` href="${attributeValue(url(node.url, hrefProtocols))}"`;
      if (node.title !== null && node.title !== undefined)
        attributes += ` title="${attributeValue(node.title)}"`;
      return `<a${attributes}>${phrasing(node.children)}</a>`;
    }
    case "image": {
      let attributes = ` src="${attributeValue(url(node.url, srcProtocols))}"`;
      if (node.alt !== null && node.alt !== undefined) attributes += ` alt="${attributeValue(node.alt)}"`;
      if (node.title !== null && node.title !== undefined)
        attributes += ` title="${attributeValue(node.title)}"`;
      return `<img${attributes}>`;
    }
    default:
      throw handBack;
  }
}

/** GitHub's sanitising schema: the protocols kept on `href` and `src`. */
const hrefProtocols = ["http", "https", "irc", "ircs", "mailto", "xmpp"];
const srcProtocols = ["http", "https"];

/**
 * A URL as mdast-util-to-hast's `normalizeUri` leaves it when it has nothing to percent-encode (else
 * handed back), and that hast-util-sanitize keeps (else handed back: it would drop the attribute).
 */
function url(value: string, protocols: string[]): string {
  if (!/^(?:[!#$&-;=?-Z_a-z~]|%[\dA-Za-z]{2})*$/.test(value)) throw handBack;
  const colon = value.indexOf(":");
  if (colon < 0) return value;
  for (const mark of ["/", "?", "#"]) {
    const index = value.indexOf(mark);
    if (index > -1 && colon > index) return value;
  }
  if (protocols.some((protocol) => colon === protocol.length && value.startsWith(protocol))) return value;
  throw handBack;
}

/** hast-util-to-html's text escaping. */
function text(value: string): string {
  return value.replace(/[<&]/g, (character) => (character === "<" ? "&#x3C;" : "&#x26;"));
}

/** hast-util-to-html's escaping of a double-quoted attribute value (`"`, `&`, `'` and a backtick). */
function attributeValue(value: string): string {
  return value.replace(/["&'`]/g, (character) => `&#x${character.charCodeAt(0).toString(16).toUpperCase()};`);
}
