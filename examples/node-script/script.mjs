// A plain Node script using Quire in-process: publish the Markdown files of a folder as notes
// (once each), then print the newest posts. Run it again and nothing is published twice.
//   node script.mjs [folder]          (with the published packages)
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { createEngine, isEngineError } from "@quire/core";
import { openDatabase } from "@quire/core/node";

const folder = process.argv[2] ?? "posts";
const dataDir = process.env.DATA_DIR ?? "data";
mkdirSync(dataDir, { recursive: true }); // SQLite creates the file, not the folder

const engine = createEngine({ db: await openDatabase({ url: `${dataDir}/quire.db` }) });
try {
  await engine.migrate(); // forward-only; safe on every run

  for (const file of readdirSync(folder)
    .filter((name) => name.endsWith(".md"))
    .sort()) {
    const slug = basename(file, ".md");
    const text = readFileSync(join(folder, file), "utf8");
    // A first line "# Title" becomes the title; the rest is the body.
    const [, title, body] = /^# (.+)\n+([\s\S]*)$/.exec(text) ?? [undefined, undefined, text];
    try {
      await engine.posts.create({ format: "note", slug, title, bodyMarkdown: body });
      console.log(`published ${slug}`);
    } catch (error) {
      // The slug is taken: published by an earlier run. Any other error is a real failure.
      if (!isEngineError(error) || error.code !== "CONFLICT") throw error;
      console.log(`already there: ${slug}`);
    }
  }

  const { posts } = await engine.posts.list({ limit: 10 });
  for (const post of posts) console.log(`${post.slug}\t${post.bodyHtml}`);
} finally {
  await engine.close();
}
