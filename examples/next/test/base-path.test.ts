import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// Under a Next.js basePath (SITE_PATH_PREFIX=/blog, next.config.mjs), Next.js hands route handlers
// the URL without the prefix (checked by hand with `next build` + `next start`; building twice in
// the suite would double its time). These call the route files' exports with such URLs, the way
// Next.js does, and check that Quire still sees and writes the prefix.
const dataDir = join(tmpdir(), `quire-next-prefix-${process.pid}`); // created on first use
process.env.SITE_PATH_PREFIX = "/blog";
process.env.QUIRE_DATA_DIR = dataDir;
process.env.INTERNAL_ADMIN_TOKEN = "next-example-internal-admin-token";
const api = await import("../src/app/api/[...path]/route.js");
const media = await import("../src/app/media/[...key]/route.js");
const { quireRoutes } = await import("../src/lib/quire.js");

describe.skipIf(process.env.QUIRE_TEST_DATABASE === "postgres")(
  "the Next.js example under a basePath",
  () => {
    let auth: { authorization: string };

    beforeAll(async () => {
      const created = await api.POST(
        new Request("http://localhost/api/internal/tokens", {
          method: "POST",
          headers: {
            authorization: `Bearer ${process.env.INTERNAL_ADMIN_TOKEN}`,
            "content-type": "application/json",
          },
          body: JSON.stringify({ name: "prefix" }),
        }),
      );
      expect(created.status).toBe(201);
      auth = { authorization: `Bearer ${((await created.json()) as { token: string }).token}` };
    });
    afterAll(async () => {
      await (await quireRoutes()).engine.close();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it("puts the prefix back, so permalinks and media URLs carry it and bodies still arrive", async () => {
      const created = await api.POST(
        new Request("http://localhost/api/posts", {
          method: "POST",
          headers: { ...auth, "content-type": "application/json" },
          body: JSON.stringify({ format: "note", title: "Below", bodyMarkdown: "a path" }),
        }),
      );
      expect(created.status).toBe(201);
      const read = await api.GET(new Request("http://localhost/api/public/posts/below"));
      expect(await read.json()).toMatchObject({ permalink: "/blog/below" });

      const form = new FormData();
      form.set("file", new Blob(["prefixed"], { type: "text/plain" }), "p.txt");
      const uploaded = await api.POST(
        new Request("http://localhost/api/upload", { method: "POST", headers: auth, body: form }),
      );
      expect(uploaded.status).toBe(201);
      const { url } = (await uploaded.json()) as { url: string };
      expect(url).toMatch(/^\/blog\/media\//);
      // Next.js delivers /blog/media/… to the media route as /media/….
      const file = await media.GET(new Request(new URL(url.slice("/blog".length), "http://localhost")));
      expect(await file.text()).toBe("prefixed");
    });

    it("leaves a URL that already carries the prefix alone", async () => {
      const read = await api.GET(new Request("http://localhost/blog/api/public/posts/below"));
      expect(read.status).toBe(200);
    });
  },
);
