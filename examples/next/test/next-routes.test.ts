import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as apiRoute from "../src/app/api/[...path]/route.js";
import * as mediaRoute from "../src/app/media/[...key]/route.js";
import { dispatch } from "../src/dispatch.js";
import { quireRoutes } from "../src/lib/quire.js";

// The route files open their own SQLite database from QUIRE_DATA_DIR, as in a Next.js app: run
// them once, whichever database the suite runs on.
describe.skipIf(process.env.QUIRE_TEST_DATABASE === "postgres")("Quire as Next.js route handlers", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "quire-next-"));
  let auth: { authorization: string };

  beforeAll(async () => {
    process.env.QUIRE_DATA_DIR = dataDir;
    const { engine } = await quireRoutes();
    auth = { authorization: `Bearer ${(await engine.tokens.create({ name: "next-test" })).token}` };
  });
  afterAll(async () => {
    await (await quireRoutes()).engine.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("exports a handler per method, for the Node.js runtime, never prerendered", () => {
    const handlers = Object.entries(apiRoute).filter(([, value]) => typeof value === "function");
    expect(handlers.map(([name]) => name).sort()).toEqual([
      "DELETE",
      "GET",
      "HEAD",
      "OPTIONS",
      "PATCH",
      "POST",
      "PUT",
    ]);
    expect(apiRoute.runtime).toBe("nodejs");
    expect(apiRoute.dynamic).toBe("force-dynamic");
    expect(mediaRoute.GET).toBeTypeOf("function");
  });

  it("creates and reads a post through the route file's POST and GET", async () => {
    const created = await apiRoute.POST(
      new Request("http://localhost/api/posts", {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({ format: "note", title: "From Next", bodyMarkdown: "A *route* handler" }),
      }),
    );
    expect(created.status).toBe(201);
    const read = await apiRoute.GET(new Request("http://localhost/api/public/posts/from-next"));
    expect(await read.json()).toMatchObject({ bodyHtml: "<p>A <em>route</em> handler</p>" });
    const anonymous = await apiRoute.POST(
      new Request("http://localhost/api/posts", { method: "POST", body: "{}" }),
    );
    expect(anonymous.status).toBe(401);
  });

  it("stores an upload and serves it from the media route", async () => {
    const form = new FormData();
    form.set("file", new Blob(["next media"], { type: "text/plain" }), "note.txt");
    const uploaded = await dispatch(
      new Request("http://localhost/api/upload", { method: "POST", headers: auth, body: form }),
    );
    expect(uploaded.status).toBe(201);
    const { url } = (await uploaded.json()) as { url: string };
    const file = await dispatch(new Request(new URL(url, "http://localhost")));
    expect(file.status).toBe(200);
    expect(await file.text()).toBe("next media");
  });
});
