import { spawnSync } from "node:child_process";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliRun, runCliCapturing } from "./support/cli.js";
import { createTestSite, type ServerProcess, startServerProcess } from "./support/processes.js";

/** Debian's chromium, found on PATH (as in examples/static-site's browser test). */
function findChromium(): string | null {
  for (const name of ["chromium", "chromium-browser"]) {
    const found = spawnSync("which", [name], { encoding: "utf8" });
    if (found.status === 0 && found.stdout.trim() !== "") return found.stdout.trim();
  }
  return null;
}

const executablePath = findChromium();
if (!executablePath && process.env.CI) {
  throw new Error("CI=true but no chromium on PATH: the sign-in browser test must run in CI");
}

const password = "a long owner password";
const devToken = "dev-token-for-signin-tests";

/** Runs the CLI in-process with the given stdin (or a terminal prompt answering `prompts` in turn). */
async function cli(
  env: Record<string, string>,
  argv: string[],
  input: { stdin?: string; prompts?: string[] } = {},
): Promise<CliRun> {
  const prompts = [...(input.prompts ?? [])];
  return runCliCapturing(argv, env, {
    ...(input.stdin !== undefined ? { readStdin: async () => input.stdin as string } : {}),
    ...(input.prompts ? { promptHidden: async () => prompts.shift() ?? "" } : {}),
  });
}

describe("owner sign-in on the reference server", () => {
  let site: Awaited<ReturnType<typeof createTestSite>>;
  let server: ServerProcess;
  const api = (pathname: string, init: RequestInit = {}) => fetch(`${server.url}${pathname}`, init);
  const asDev = { authorization: `Bearer ${devToken}` };
  const postCount = async () => {
    const res = await api("/api/posts?status=published", { headers: asDev });
    return ((await res.json()) as { posts: unknown[] }).posts.length;
  };

  beforeAll(async () => {
    site = await createTestSite();
    server = await startServerProcess({
      ...site.env,
      DEV_API_TOKEN: devToken,
      TRUST_PROXY: "true",
      RATE_LIMIT_SEARCH_PER_MIN: "2",
    });
  });

  afterAll(async () => {
    if (server?.child.exitCode === null) {
      server.child.kill("SIGKILL");
      await server.exited;
    }
    await site?.cleanup();
  });

  it("sets the password with `quire owner password` (stdin or twice at a prompt), refusing bad input", async () => {
    const short = await cli(site.env, ["owner", "password", "--password-stdin"], { stdin: "short\n" });
    expect(short.code).toBe(1);
    expect(short.stderr).toMatch(/VALIDATION_ERROR/);
    const noTerminal = await cli(site.env, ["owner", "password"]);
    expect(noTerminal.code).toBe(1);
    expect(noTerminal.stderr).toMatch(/--password-stdin/);
    const differ = await cli(site.env, ["owner", "password"], { prompts: [password, "something else"] });
    expect(differ.code).toBe(1);
    expect(differ.stderr).toMatch(/differ/);
    const prompted = await cli(site.env, ["owner", "password"], {
      prompts: ["first password", "first password"],
    });
    expect(prompted.code).toBe(0);
    const set = await cli(site.env, ["owner", "password", "--password-stdin"], { stdin: `${password}\n` });
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toMatch(/Owner password set/);
    expect((await cli(site.env, ["owner", "password", "extra"])).code).toBe(2);
  });

  describe.skipIf(!executablePath)("in a real browser (chromium)", () => {
    let browser: Browser;

    beforeAll(async () => {
      browser = await chromium.launch({ executablePath: executablePath as string, args: ["--no-sandbox"] });
    });
    afterAll(async () => {
      await browser?.close();
    });

    it("signs in through the form, writes with the cookie from the page, signs out, and is refused after", async () => {
      const context = await browser.newContext();
      const page = await context.newPage();
      const form = await page.goto(`${server.url}/signin?next=/api/posts`);
      expect(form?.status()).toBe(200);
      expect(await page.title()).toBe("Sign in");

      // A wrong password: the form again, with the error, and no cookie.
      await page.fill("#password", "not the password");
      await Promise.all([page.waitForLoadState(), page.click("button[type=submit]")]);
      expect(await page.locator("p[role=alert]").textContent()).toBe("Wrong password");
      expect(await context.cookies()).toEqual([]);

      await page.fill("#password", password);
      const [landed] = await Promise.all([
        page.waitForResponse((response) => new URL(response.url()).pathname === "/api/posts"),
        page.click("button[type=submit]"),
      ]);
      expect(landed.status()).toBe(200);
      expect(new URL(page.url()).pathname).toBe("/api/posts");
      const cookies = await context.cookies();
      expect(cookies).toHaveLength(1);
      expect(cookies[0]).toMatchObject({
        name: "quire_session",
        httpOnly: true,
        sameSite: "Lax",
        secure: false,
      });
      // HttpOnly: the page's scripts cannot read it.
      expect(await page.evaluate(() => document.cookie)).toBe("");

      const created = await page.evaluate(async () => {
        const response = await fetch("/api/posts", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ format: "note", bodyMarkdown: "written from the browser" }),
        });
        return { status: response.status, body: await response.json() };
      });
      expect(created.status).toBe(201);
      expect(created.body.bodyText).toContain("written from the browser");
      const listed = await page.evaluate(async () => (await fetch("/api/posts")).status);
      expect(listed).toBe(200);

      const signedOut = await page.evaluate(async () => {
        const response = await fetch("/signout", { method: "POST" });
        return response.status;
      });
      expect(signedOut).toBe(200);
      expect(await context.cookies()).toEqual([]);
      const after = await page.evaluate(async () => {
        const response = await fetch("/api/posts");
        return { status: response.status, body: await response.json() };
      });
      expect(after).toEqual({
        status: 401,
        body: { error: "Authentication required", code: "UNAUTHORIZED" },
      });
      await context.close();
    });

    it("keeps another site from writing with the owner's cookie", async () => {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${server.url}/signin`);
      await page.fill("#password", password);
      await Promise.all([page.waitForURL(`${server.url}/`), page.click("button[type=submit]")]);
      const before = await postCount();
      // localhost and 127.0.0.1 are different sites: a page on one posting to the other.
      const other = server.url.replace("127.0.0.1", "localhost");
      await page.goto(`${other}/signin`);
      await page.evaluate(async (target) => {
        await fetch(`${target}/api/posts`, {
          method: "POST",
          mode: "no-cors",
          credentials: "include",
          headers: { "content-type": "text/plain" },
          body: JSON.stringify({ format: "note", bodyMarkdown: "forged" }),
        }).catch(() => undefined);
      }, server.url);
      expect(await postCount()).toBe(before);
      await context.close();
    });
  });

  it("limits sign-in attempts per forwarded client (TRUST_PROXY=true) with 429 and Retry-After", async () => {
    const attempt = (client: string) =>
      api("/signin", {
        method: "POST",
        headers: { "content-type": "application/json", origin: server.url, "x-forwarded-for": client },
        body: JSON.stringify({ password: "wrong password" }),
      });
    for (let i = 0; i < 10; i++) expect((await attempt("203.0.113.9")).status).toBe(401);
    const limited = await attempt("203.0.113.9");
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await limited.json()).toMatchObject({ code: "RATE_LIMITED" });
    expect((await attempt("198.51.100.20")).status).toBe(401);
    // Eleven password checks (scrypt, 32 MiB each) on a shared machine: a generous budget.
  }, 180_000);

  it("limits search per client to RATE_LIMIT_SEARCH_PER_MIN", async () => {
    const search = () => api("/api/search?q=browser", { headers: asDev });
    expect((await search()).status).toBe(200);
    expect((await search()).status).toBe(200);
    const third = await search();
    expect(third.status).toBe(429);
    expect(Number(third.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("signs every browser session out with `quire owner signout-all`", async () => {
    const res = await api("/signin", {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.url, "x-forwarded-for": "192.0.2.1" },
      body: JSON.stringify({ password }),
    });
    expect(res.status).toBe(200);
    const cookie = (res.headers.get("set-cookie") ?? "").split(";")[0] as string;
    expect((await api("/api/posts", { headers: { cookie } })).status).toBe(200);
    const out = await cli(site.env, ["owner", "signout-all"]);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/Signed out [1-9]\d* browser session/);
    expect((await api("/api/posts", { headers: { cookie } })).status).toBe(401);
  });
});
