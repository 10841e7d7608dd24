import type { Node } from "mdast";

/** The excerpt break: what comes before it is the post's excerpt. @see spec § Body formats */
export interface ReadMore extends Node {
  type: "readMore";
}

declare module "mdast" {
  interface RootContentMap {
    readMore: ReadMore;
  }
  interface BlockContentMap {
    readMore: ReadMore;
  }
}

/** The excerpt break as written in Markdown and in `bodyHtml`. */
export const readMoreComment = "<!--more-->";

/** Whether a piece of raw HTML is the excerpt break alone (whitespace and case do not matter). */
export function isReadMoreComment(html: string): boolean {
  return /^<!--\s*more\s*-->$/i.test(html.trim());
}
