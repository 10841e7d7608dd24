import { mkdirSync } from "node:fs";
import { serve } from "@hono/node-server";
import { createEngine } from "@quire/core";
import { openDatabase } from "@quire/core/node";
import { createFsStorage } from "@quire/storage-fs";
import { createApp, sessionCookie } from "./app.js";
import { createMemorySessions } from "./sessions.js";

// The same engine the reference server runs, opened in-process on the app's own database.
const dataDir = process.env.DATA_DIR ?? "data";
mkdirSync(dataDir, { recursive: true }); // SQLite does not create the folder
const db = await openDatabase({ url: process.env.DATABASE_URL ?? `${dataDir}/embed-hono.db` });
// Without storage the engine keeps posts but refuses uploads: media files go to a local folder,
// served by the app under /media (see createApp).
const storage = createFsStorage({ root: `${dataDir}/media`, publicBaseUrl: "/media" });
const engine = createEngine({ db, storage });
await engine.migrate();

const sessions = createMemorySessions();
const app = createApp({ engine, sessions, storage });

// A demo session for the site owner; a real app signs users in its own way.
const ownerSession = sessions.create({ name: "Site owner", siteOwner: true });

const port = Number(process.env.PORT ?? 3001);
const server = serve({ fetch: app.fetch, port, hostname: "127.0.0.1" }, (info) => {
  console.log(`Listening on http://127.0.0.1:${info.port}`);
  console.log(
    `Try: curl -X POST -H 'content-type: application/json' -b '${sessionCookie}=${ownerSession}' ` +
      `-d '{"format":"note","bodyMarkdown":"Hello"}' http://127.0.0.1:${info.port}/api/posts`,
  );
});

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    server.close(() => void engine.close().then(() => process.exit(0)));
  });
}
