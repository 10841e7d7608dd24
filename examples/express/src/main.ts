import { mkdirSync } from "node:fs";
import { createEngine } from "@quire/core";
import { openDatabase } from "@quire/core/node";
import { createFsStorage } from "@quire/storage-fs";
import { createApp } from "./app.js";

const dataDir = process.env.DATA_DIR ?? "data";
mkdirSync(dataDir, { recursive: true }); // SQLite does not create the folder
const storage = createFsStorage({ root: `${dataDir}/media`, publicBaseUrl: "/media" });
const db = await openDatabase({ url: process.env.DATABASE_URL ?? `${dataDir}/quire.db` });
const engine = createEngine({ db, storage });
await engine.migrate();

const devApiToken = process.env.DEV_API_TOKEN ?? "dev-token";
const app = createApp({ engine, storage, devApiToken });
const port = Number(process.env.PORT ?? 3002);
const server = app.listen(port, "127.0.0.1", () => {
  const address = server.address();
  const actual = typeof address === "object" && address ? address.port : port;
  console.log(`Listening on http://127.0.0.1:${actual}`);
  console.log(
    `Try: curl -H 'authorization: Bearer ${devApiToken}' -H 'content-type: application/json' ` +
      `-d '{"format":"note","bodyMarkdown":"Hello"}' http://127.0.0.1:${actual}/api/posts`,
  );
});

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    server.close(() => void engine.close().then(() => process.exit(0)));
  });
}
