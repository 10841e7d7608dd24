/** The Markdown body of bench:write: about 1.5 KB, deterministic per post number. */
const words = (
  "quire engine write path thread post reply render markdown parse tree index search stored " +
  "column table batch insert statement prepare compile transaction commit read visible process " +
  "editor document summary slug address collection figure activity language sample text html"
).split(" ");

/** A deterministic word source, so every run writes the same posts. */
export function wordsFrom(seed: number) {
  let state = (seed * 2654435761) >>> 0;
  return () => {
    state = (Math.imul(state ^ (state >>> 15), 2246822507) + 0x9e3779b9) >>> 0;
    return words[state % words.length] as string;
  };
}

function sentence(next: () => string, length: number): string {
  const text = Array.from({ length }, next).join(" ");
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

/**
 * A Markdown body of about 1.5 KB with what posts hold: a heading, paragraphs with emphasis,
 * strong text, inline code and links, a bullet list, a fenced code block and a quote.
 */
export function markdownBody(n: number): string {
  const next = wordsFrom(n + 1);
  const body = [
    `## ${sentence(next, 5)}`,
    `${sentence(next, 14)} *${next()} ${next()}* and **${next()}** with \`${next()}()\` and a [link](https://example.com/${n}/${next()}). ${sentence(next, 18)}`,
    `${sentence(next, 20)} ${sentence(next, 16)} See https://example.org/notes/${n} for more.`,
    [1, 2, 3, 4].map(() => `- ${sentence(next, 8)}`).join("\n"),
    `\`\`\`ts\nconst ${next()} = await engine.posts.create({ format: "note" });\nconsole.log(${next()});\n\`\`\``,
    `> ${sentence(next, 16)}`,
    `${sentence(next, 22)} ${sentence(next, 14)}`,
    `### ${sentence(next, 4)}`,
    `${sentence(next, 24)} _${next()}_ ${sentence(next, 12)}`,
  ].join("\n\n");
  return body;
}
