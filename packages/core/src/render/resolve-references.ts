import type { Definition, Parent, PhrasingContent, Root, RootContent } from "mdast";

/**
 * Rewrites a tree, in place, so it needs no definitions: reference links and images become plain
 * ones and definitions go. The editor has no footnotes, so they are kept as the literal text
 * `[^label]` (references) and `[^label]: …` (definitions, where they were written).
 */
export function resolveReferences(tree: Root): void {
  // Most bodies hold none of these: one walk without allocating tells, and leaves them as they are.
  if (!holdsReferences(tree)) return;
  const definitions = collectDefinitions(tree);
  const pending: Parent[] = [tree];
  for (let parent = pending.pop(); parent; parent = pending.pop()) {
    parent.children = parent.children.flatMap((child) => resolve(child, definitions));
    for (const child of parent.children) if ("children" in child) pending.push(child);
  }
}

/** The node types {@link resolve} rewrites. */
const referenceTypes = new Set([
  "definition",
  "linkReference",
  "imageReference",
  "footnoteReference",
  "footnoteDefinition",
]);

function holdsReferences(tree: Root): boolean {
  const pending: Parent[] = [tree];
  for (let parent = pending.pop(); parent; parent = pending.pop()) {
    for (const child of parent.children) {
      if (referenceTypes.has(child.type)) return true;
      if ("children" in child) pending.push(child);
    }
  }
  return false;
}

function collectDefinitions(tree: Root): Map<string, Definition> {
  const definitions = new Map<string, Definition>();
  const pending: RootContent[] = [...tree.children].reverse();
  for (let node = pending.pop(); node; node = pending.pop()) {
    // As in CommonMark, the first definition of a label wins.
    if (node.type === "definition" && !definitions.has(node.identifier))
      definitions.set(node.identifier, node);
    if ("children" in node) pending.push(...[...node.children].reverse());
  }
  return definitions;
}

function resolve(node: RootContent, definitions: Map<string, Definition>): RootContent[] {
  switch (node.type) {
    case "definition":
      return [];
    case "linkReference": {
      const definition = definitions.get(node.identifier);
      if (!definition) return node.children;
      return [
        { type: "link", url: definition.url, title: definition.title ?? null, children: node.children },
      ];
    }
    case "imageReference": {
      const definition = definitions.get(node.identifier);
      if (!definition) return node.alt ? [{ type: "text", value: node.alt }] : [];
      return [{ type: "image", url: definition.url, title: definition.title ?? null, alt: node.alt ?? "" }];
    }
    case "footnoteReference":
      return [{ type: "text", value: `[^${node.label ?? node.identifier}]` }];
    case "footnoteDefinition":
      return withLeadingText(node.children, `[^${node.label ?? node.identifier}]: `);
    default:
      return [node];
  }
}

function withLeadingText(blocks: RootContent[], value: string): RootContent[] {
  const [first, ...rest] = blocks;
  const label: PhrasingContent = { type: "text", value };
  if (first?.type === "paragraph") return [{ ...first, children: [label, ...first.children] }, ...rest];
  return [{ type: "paragraph", children: [label] }, ...blocks];
}
