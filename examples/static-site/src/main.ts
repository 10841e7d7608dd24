import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { createEngine, settingsFromText } from "@quire/core";
import { openDatabase } from "@quire/core/node";
import { createFsStorage } from "@quire/storage-fs";
import { buildSite } from "./build.js";
import { trackStorage } from "./media.js";

// `pnpm --filter @quire/example-static-site build`: a Quire site's database as static files.
// The same variables as the reference server (docs/configuration.md):
//   DATA_DIR        default ./data; the database is DATA_DIR/quire.db and media files DATA_DIR/media
//   DATABASE_URL    another database: a SQLite file or a postgres:// URL
//   MEDIA_BASE_URL  the public address of the media folder (default <SITE_PATH_PREFIX>/media, as the server)
//   SITE_ORIGIN     the site's public origin (https://example.com): feeds and sitemap.xml are written only with it
//   OUT_DIR         where to write the site (default ./dist)
// The other variables (SITE_NAME, PAGE_SIZE, SITE_PATH_PREFIX, …) are the site settings' fallbacks;
// settings stored in the database win, as on the server.
const env = process.env;
const dataDir = resolve(env.DATA_DIR ?? "data");
const databaseUrl = env.DATABASE_URL ?? join(dataDir, "quire.db");
const outDir = resolve(env.OUT_DIR ?? "dist");

if (!/^postgres(ql)?:\/\//.test(databaseUrl) && !existsSync(databaseUrl.replace(/^file:/, ""))) {
  console.error(`No database at ${databaseUrl}: point DATA_DIR or DATABASE_URL at a Quire site's database.`);
  process.exit(1);
}

const started = performance.now();
const db = await openDatabase({ url: databaseUrl });
const settings = settingsFromText(env);
// The media folder's address follows the site path prefix in effect, which the database may hold.
const reader = createEngine({ db, settings });
await reader.migrate();
const prefix = (await reader.siteSettings()).sitePathPrefix.replace(/\/+$/, "");
const media = trackStorage(
  createFsStorage({ root: join(dataDir, "media"), publicBaseUrl: env.MEDIA_BASE_URL ?? `${prefix}/media` }),
);
const engine = createEngine({ db, storage: media, settings });
try {
  const origin = env.SITE_ORIGIN?.trim().replace(/\/+$/, "") || undefined;
  const report = await buildSite(engine, { outDir, media, origin });
  const seconds = ((performance.now() - started) / 1000).toFixed(2);
  console.log(
    `Wrote ${report.pages} pages (${report.posts} posts in ${report.threads} Threads, ${report.collections} collection ` +
      `pages, ${report.redirects} redirects), ${report.mediaFiles} media files and ${report.feeds} feeds to ${outDir} in ${seconds} s`,
  );
} finally {
  await engine.close();
}
