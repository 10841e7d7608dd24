import type { Nodes, Root } from "mdast";
import { gfmFromMarkdown } from "mdast-util-gfm";

/**
 * Turns URLs and e-mail addresses in plain text into links, in place, as GFM does when it parses
 * Markdown (the same transform runs). Without it a bare URL typed in the editor would become a
 * link only after a trip through Markdown, and the round trip would not be stable.
 *
 * The transform (mdast-util-find-and-replace over every text node, with unist-util-visit-parents)
 * cost 0.13 ms per bench:write body even when it found nothing, which is nearly always: a body from
 * Markdown has its URLs linked by the parser already. So it runs only on a tree with a text node,
 * outside links, that holds what each of its patterns needs (`://` or `www.` for a URL, `@` for an
 * address); other trees it would leave as they are.
 */
export function linkBareUrls(tree: Root): void {
  if (mayHoldBareUrl(tree)) linkBareUrlsEverywhere(tree);
}

/** Runs GFM's transform on any tree: the reference {@link linkBareUrls} must match. */
export function linkBareUrlsEverywhere(tree: Root): void {
  for (const transform of gfmTransforms) transform(tree);
}

/** GFM's tree transforms, made once: they hold no state between trees. */
const gfmTransforms = gfmFromMarkdown().flatMap((extension) => extension.transforms ?? []);

/** What every pattern of GFM's autolink-literal transform needs in a text node to match there. */
const urlOrAddress = /:\/\/|www\.|@/i;

/** Whether a text node the transform would search (it skips links and link references) may match. */
function mayHoldBareUrl(node: Nodes): boolean {
  if (node.type === "text") return urlOrAddress.test(node.value);
  if (node.type === "link" || node.type === "linkReference" || !("children" in node)) return false;
  for (const child of node.children) if (mayHoldBareUrl(child)) return true;
  return false;
}
