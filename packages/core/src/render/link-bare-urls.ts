import type { Root } from "mdast";
import { gfmFromMarkdown } from "mdast-util-gfm";

/**
 * Turns URLs and e-mail addresses in plain text into links, in place, as GFM does when it parses
 * Markdown (the same transform runs). Without it a bare URL typed in the editor would become a
 * link only after a trip through Markdown, and the round trip would not be stable.
 */
export function linkBareUrls(tree: Root): void {
  for (const transform of gfmTransforms) transform(tree);
}

/** GFM's tree transforms, made once: they hold no state between trees. */
const gfmTransforms = gfmFromMarkdown().flatMap((extension) => extension.transforms ?? []);
