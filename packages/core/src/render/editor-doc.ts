import { invalidField } from "../errors.js";
import { findUnstorableText } from "../shared/storable-text.js";

/** A mark on an inline node of a ProseMirror/TipTap document. */
export interface DocMark {
  type: string;
  attrs?: Record<string, unknown>;
}

/** A node of a ProseMirror/TipTap document, as stored in the `body` JSON string. */
export interface DocNode {
  type: string;
  attrs?: Record<string, unknown>;
  content?: DocNode[];
  marks?: DocMark[];
  text?: string;
}

/** Deeper than any real document; keeps a hostile one from exhausting the stack. */
export const maxNesting = 200;

/** Parses a `body` string into a document, or throws a VALIDATION_ERROR naming `body`. */
export function readEditorDoc(body: string): DocNode {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw invalidField("body", "must be an editor document as a JSON string");
  }
  if (!isRecord(value) || value.type !== "doc") {
    throw invalidField("body", 'must be an editor document whose top node has type "doc"');
  }
  const doc = readNode(value, 0);
  // The body string itself was checked like every input; an escape inside it (`\u0000`, half of
  // a surrogate pair) can still put into the document text no database stores as sent (NUL
  // answered 500 on PostgreSQL). Only a body holding such an escape is walked.
  if (riskyEscape.test(body)) {
    const found = findUnstorableText(value, { maxDepth: 4 * maxNesting });
    if (found !== null) throw invalidField("body", found.message);
  }
  return doc;
}

/** `\u0000` or `\uD800`–`\uDFFF`, the JSON escapes that can make unstorable text. */
const riskyEscape = /\\u(?:0000|[dD][89a-fA-F])/;

function readNode(value: unknown, depth: number): DocNode {
  if (depth > maxNesting) throw unreadable("is nested too deeply");
  if (!isRecord(value) || typeof value.type !== "string") throw unreadable("has a node without a type");
  const node: DocNode = { type: value.type };
  if (value.attrs != null) {
    if (!isRecord(value.attrs)) throw unreadable(`has a ${value.type} node whose attrs is not an object`);
    node.attrs = value.attrs;
  }
  if (value.content != null) {
    if (!Array.isArray(value.content))
      throw unreadable(`has a ${value.type} node whose content is not a list`);
    node.content = value.content.map((child) => readNode(child, depth + 1));
  }
  if (value.marks != null) {
    if (!Array.isArray(value.marks)) throw unreadable(`has a ${value.type} node whose marks is not a list`);
    node.marks = value.marks.map(readMark);
  }
  if (value.text != null || value.type === "text") {
    if (typeof value.text !== "string") throw unreadable("has a text node without text");
    node.text = value.text;
  }
  return node;
}

function readMark(value: unknown): DocMark {
  if (!isRecord(value) || typeof value.type !== "string") throw unreadable("has a mark without a type");
  if (value.attrs != null && !isRecord(value.attrs))
    throw unreadable("has a mark whose attrs is not an object");
  return value.attrs == null ? { type: value.type } : { type: value.type, attrs: value.attrs };
}

function unreadable(problem: string) {
  return invalidField("body", `editor document ${problem}`);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
