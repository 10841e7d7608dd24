import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// Builds the example with the real `next build`, serves it with `next start` and talks to it over
// HTTP. The app opens its own SQLite database in a temporary folder, so it runs once, on the SQLite
// pass of the suite (the PostgreSQL pass would only build it again).
const exampleDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const nextBin = join(exampleDir, "node_modules", ".bin", "next");
const adminToken = "next-example-internal-admin-token";

/** Runs a command in the example's folder; resolves with its output, rejects on a non-zero exit. */
function run(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(nextBin, args, { cwd: exampleDir, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0 ? resolve(output) : reject(new Error(`next ${args[0]} exited with ${code}:\n${output}`)),
    );
  });
}

/** A TCP port nothing listens on right now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

describe.skipIf(process.env.QUIRE_TEST_DATABASE === "postgres")(
  "the Next.js example under next start",
  () => {
    const dataDir = mkdtempSync(join(tmpdir(), "quire-next-"));
    let server: ChildProcess | undefined;
    let serverOutput = "";
    let base = "";
    let auth: { authorization: string };

    beforeAll(async () => {
      const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", NODE_ENV: "production" };
      await run(["build"], env);
      const port = await freePort();
      base = `http://127.0.0.1:${port}`;
      server = spawn(nextBin, ["start", "-H", "127.0.0.1", "-p", String(port)], {
        cwd: exampleDir,
        env: { ...env, QUIRE_DATA_DIR: dataDir, INTERNAL_ADMIN_TOKEN: adminToken },
        stdio: ["ignore", "pipe", "pipe"],
      });
      server.stdout?.on("data", (chunk) => (serverOutput += chunk));
      server.stderr?.on("data", (chunk) => (serverOutput += chunk));
      // Ready when the API answers (the first request also opens and migrates the database).
      for (let attempt = 0; ; attempt++) {
        if (server.exitCode !== null) throw new Error(`next start exited:\n${serverOutput}`);
        const answer = await fetch(`${base}/api/public/threads`).catch(() => null);
        if (answer?.status === 200) break;
        if (attempt > 600) throw new Error(`next start did not answer:\n${serverOutput}`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      const created = await fetch(`${base}/api/internal/tokens`, {
        method: "POST",
        headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "next-test" }),
      });
      expect(created.status).toBe(201);
      auth = { authorization: `Bearer ${((await created.json()) as { token: string }).token}` };
    }, 900_000);

    afterAll(async () => {
      if (server && server.exitCode === null) {
        const exited = new Promise((resolve) => server?.once("exit", resolve));
        server.kill("SIGTERM");
        await exited;
      }
      rmSync(dataDir, { recursive: true, force: true });
    }, 60_000);

    it("creates, updates and lists a post through the catch-all route handler", async () => {
      const created = await fetch(`${base}/api/posts`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({ format: "note", title: "From Next", bodyMarkdown: "A *route* handler" }),
      });
      expect(created.status).toBe(201);
      const post = (await created.json()) as { id: string; slug: string };
      expect(post.slug).toBe("from-next");

      const updated = await fetch(`${base}/api/posts/${post.id}`, {
        method: "PUT",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({ bodyMarkdown: "A *Next.js* route handler" }),
      });
      expect(updated.status).toBe(200);

      const threads = await fetch(`${base}/api/threads`, { headers: auth });
      expect(threads.status).toBe(200);
      const list = (await threads.json()) as { threads: { root: { id: string } }[] };
      expect(list.threads.map((thread) => thread.root.id)).toEqual([post.id]);

      const anonymous = await fetch(`${base}/api/threads`);
      expect(anonymous.status).toBe(401);
      expect(await anonymous.json()).toMatchObject({ code: "UNAUTHORIZED" });
    });

    it("answers public reads and the feeds at the root", async () => {
      const read = await fetch(`${base}/api/public/posts/from-next`);
      expect(read.status).toBe(200);
      expect(await read.json()).toMatchObject({ bodyHtml: "<p>A <em>Next.js</em> route handler</p>" });

      const rss = await fetch(`${base}/rss`);
      expect(rss.status).toBe(200);
      expect(rss.headers.get("content-type")).toContain("xml");
      expect(await rss.text()).toContain("From Next");

      const robots = await fetch(`${base}/robots.txt`);
      expect(robots.status).toBe(200);
      expect(await robots.text()).toContain("Sitemap:");
    });

    it("stores a multipart upload, serves the file from the media route, and deletes it", async () => {
      const form = new FormData();
      form.set("file", new Blob(["next media"], { type: "text/plain" }), "note.txt");
      const uploaded = await fetch(`${base}/api/upload`, { method: "POST", headers: auth, body: form });
      expect(uploaded.status).toBe(201);
      const { id, url } = (await uploaded.json()) as { id: string; url: string };
      expect(url).toMatch(/^\/media\//);
      const file = await fetch(new URL(url, base));
      expect(file.status).toBe(200);
      expect(await file.text()).toBe("next media");
      const head = await fetch(new URL(url, base), { method: "HEAD" });
      expect(head.status).toBe(200);
      expect(await head.text()).toBe("");

      const removed = await fetch(`${base}/api/media/${id}`, { method: "DELETE", headers: auth });
      expect(await removed.json()).toEqual({ success: true });
      expect((await fetch(new URL(url, base))).status).toBe(404);
    });

    it("answers an unknown API path with Quire's JSON 404, and a validation error as JSON 400", async () => {
      const missing = await fetch(`${base}/api/no-such-route`);
      expect(missing.status).toBe(404);
      expect(missing.headers.get("content-type")).toContain("application/json");
      expect(await missing.json()).toMatchObject({ code: "NOT_FOUND" });

      const invalid = await fetch(`${base}/api/posts`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({ format: "no-such-format" }),
      });
      expect(invalid.status).toBe(400);
      expect(await invalid.json()).toMatchObject({ code: "VALIDATION_ERROR" });
    });
  },
);
