import { describe, expect, it } from "vitest";
import { assertErrorShape, createTestSite, type TestSite } from "./helpers.js";

const secret = "a-test-auth-secret-of-at-least-32-chars";
const password = "correct horse battery";
const origin = "http://localhost";

/** A site with sign-in on and the owner's password set. */
async function signInSite(options: Parameters<typeof createTestSite>[0] = {}): Promise<TestSite> {
  const site = await createTestSite({ sessions: { secret }, ...options });
  await site.engine.owner.setPassword({ password });
  return site;
}

/** A raw request to the site's handler (no dev token), with its text body. */
async function request(
  site: TestSite,
  method: string,
  path: string,
  init: { headers?: Record<string, string>; body?: string; url?: string } = {},
): Promise<{ status: number; headers: Headers; text: string; json: () => unknown }> {
  const response = await site.handler(
    new Request(`${init.url ?? origin}${path}`, {
      method,
      headers: init.headers ?? {},
      body: init.body ?? null,
    }),
  );
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: () => JSON.parse(text) };
}

/** Signs in through the form as a browser would; answers the `name=value` pair of the cookie. */
async function signInByForm(site: TestSite, pass = password): Promise<{ cookie: string; setCookie: string }> {
  const res = await request(site, "POST", "/signin", {
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      accept: "text/html",
      origin,
    },
    body: new URLSearchParams({ password: pass, next: "/admin?tab=posts" }).toString(),
  });
  expect(res.status, res.text).toBe(303);
  expect(res.headers.get("location")).toBe("/admin?tab=posts");
  const setCookie = res.headers.get("set-cookie") ?? "";
  return { cookie: setCookie.split(";")[0] as string, setCookie };
}

async function sessionRows(site: TestSite): Promise<number> {
  return (await site.engine.context.db.selectFrom("sessions").selectAll().execute()).length;
}

async function postCount(site: TestSite): Promise<number> {
  return (await site.engine.context.db.selectFrom("posts").selectAll().execute()).length;
}

const newPost = JSON.stringify({ format: "note", bodyMarkdown: "from the browser" });

describe("sign-in pages", () => {
  it("serve a form, set an HttpOnly SameSite=Lax cookie on the right password, and the cookie acts as the owner", async () => {
    const site = await signInSite();
    const form = await request(site, "GET", "/signin?next=/admin", { headers: { accept: "text/html" } });
    expect(form.status).toBe(200);
    expect(form.headers.get("content-type")).toContain("text/html");
    expect(form.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(form.text).toContain('<form method="post" action="/signin">');
    expect(form.text).toContain('name="next" value="/admin"');
    expect(form.text).toContain('type="password"');

    const { cookie, setCookie } = await signInByForm(site);
    expect(setCookie).toMatch(/^quire_session=qs_[^;]+; Path=\/; Max-Age=2592000; HttpOnly; SameSite=Lax$/);
    // Served over http, without a https siteOrigin: not Secure.
    expect(await sessionRows(site)).toBe(1);

    const list = await request(site, "GET", "/api/posts", { headers: { cookie } });
    expect(list.status, list.text).toBe(200);
    const created = await request(site, "POST", "/api/posts", {
      headers: { cookie, origin, "content-type": "application/json" },
      body: newPost,
    });
    expect(created.status, created.text).toBe(201);
  });

  it("answer a wrong password with 401 (the form again for a browser, JSON otherwise) and open no session", async () => {
    const site = await signInSite();
    const html = await request(site, "POST", "/signin", {
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html", origin },
      body: "password=wrong-password",
    });
    expect(html.status).toBe(401);
    expect(html.text).toContain('<p role="alert">Wrong password</p>');
    expect(html.headers.get("set-cookie")).toBeNull();
    const api = await request(site, "POST", "/signin", {
      headers: { "content-type": "application/json", origin },
      body: JSON.stringify({ password: "wrong-password" }),
    });
    expect(api.status).toBe(401);
    expect(api.json()).toEqual({ error: "Wrong password", code: "UNAUTHORIZED" });
    const missing = await request(site, "POST", "/signin", {
      headers: { "content-type": "application/x-www-form-urlencoded", origin },
      body: "user=owner",
    });
    expect(missing.status).toBe(400);
    expect((missing.json() as { details: { fieldErrors: object } }).details.fieldErrors).toHaveProperty(
      "password",
    );
    expect(await sessionRows(site)).toBe(0);
  });

  it("sign in a JSON client too, and sign out server-side: the old cookie stops working", async () => {
    const site = await signInSite();
    const res = await request(site, "POST", "/signin", {
      headers: { "content-type": "application/json", origin },
      body: JSON.stringify({ password }),
    });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ success: true, expiresAt: site.clock.now() + 2592000 });
    const cookie = (res.headers.get("set-cookie") ?? "").split(";")[0] as string;
    expect((await request(site, "GET", "/api/posts", { headers: { cookie } })).status).toBe(200);

    const out = await request(site, "POST", "/signout", { headers: { cookie, origin, accept: "text/html" } });
    expect(out.status).toBe(303);
    expect(out.headers.get("location")).toBe("/signin");
    expect(out.headers.get("set-cookie")).toBe("quire_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax");
    expect(await sessionRows(site)).toBe(0);
    // A copy of the cookie kept elsewhere is refused: the session is gone from the server.
    const after = await request(site, "GET", "/api/posts", { headers: { cookie } });
    expect(after.status).toBe(401);
    assertErrorShape(after.status, after.json());
  });

  it("refuse forged, altered, foreign-secret, expired and revoked cookies with 401", async () => {
    const site = await signInSite({ sessions: { secret, maxAgeSeconds: 3600 } });
    const { cookie } = await signInByForm(site);
    const value = cookie.slice("quire_session=".length);
    const [token, mac] = [value.slice(0, value.lastIndexOf(".")), value.slice(value.lastIndexOf(".") + 1)];
    const other = await createTestSite({ sessions: { secret: "another-secret-another-secret-12345" } });
    await other.engine.owner.setPassword({ password });
    const { cookie: foreign } = await signInByForm(other);
    const forged = [
      `quire_session=${token}x.${mac}`,
      `quire_session=${token}.${mac.slice(0, -2)}AA`,
      `quire_session=${token}`,
      `quire_session=${foreign.slice("quire_session=".length)}`,
      "quire_session=qs_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
      `quire_session=${"x".repeat(100_000)}`,
      "quire_session=%00%ff",
    ];
    for (const bad of forged) {
      const res = await request(site, "POST", "/api/posts", {
        headers: { cookie: bad, origin, "content-type": "application/json" },
        body: newPost,
      });
      expect(res.status, bad.slice(0, 80)).toBe(401);
      assertErrorShape(res.status, res.json());
    }
    expect((await request(site, "GET", "/api/posts", { headers: { cookie } })).status).toBe(200);
    site.clock.advance(3600);
    expect((await request(site, "GET", "/api/posts", { headers: { cookie } })).status).toBe(401);

    const { cookie: fresh } = await signInByForm(site);
    await site.engine.sessions.revokeAll({});
    expect((await request(site, "GET", "/api/posts", { headers: { cookie: fresh } })).status).toBe(401);
    expect(await postCount(site)).toBe(0);
  });

  it("mark the cookie Secure over https, or when siteOrigin is https", async () => {
    const site = await signInSite();
    const res = await request(site, "POST", "/signin", {
      url: "https://blog.example",
      headers: { "content-type": "application/json", origin: "https://blog.example" },
      body: JSON.stringify({ password }),
    });
    expect(res.headers.get("set-cookie")).toMatch(/; Secure$/);
    const proxied = await signInSite({ siteOrigin: "https://blog.example" });
    const behind = await request(proxied, "POST", "/signin", {
      headers: { "content-type": "application/json", origin: "https://blog.example" },
      body: JSON.stringify({ password }),
    });
    expect(behind.status).toBe(200);
    expect(behind.headers.get("set-cookie")).toMatch(/; Secure$/);
  });

  it("refuse huge bodies (400), other body types and compressed bodies (415) and other methods (405), writing nothing", async () => {
    const site = await signInSite();
    const huge = await request(site, "POST", "/signin", {
      headers: { "content-type": "application/x-www-form-urlencoded", origin },
      body: `password=${"a".repeat(1_000_000)}`,
    });
    expect(huge.status).toBe(400);
    expect((huge.json() as { code: string }).code).toBe("VALIDATION_ERROR");
    const longPassword = await request(site, "POST", "/signin", {
      headers: { "content-type": "application/x-www-form-urlencoded", origin },
      body: `password=${"a".repeat(2000)}`,
    });
    expect(longPassword.status).toBe(400);
    const multipart = await request(site, "POST", "/signin", {
      headers: { "content-type": "multipart/form-data; boundary=x", origin },
      body: "--x--",
    });
    expect(multipart.status).toBe(415);
    // A correct password, but compressed: the body is not read.
    const compressed = await request(site, "POST", "/signin", {
      headers: { "content-type": "application/x-www-form-urlencoded", "content-encoding": "deflate", origin },
      body: `password=${encodeURIComponent(password)}`,
    });
    expect([compressed.status, compressed.headers.get("accept-encoding"), compressed.json()]).toEqual([
      415,
      "identity",
      {
        error:
          "This server reads request bodies uncompressed; send the body without Content-Encoding (got deflate)",
        code: "UNSUPPORTED_MEDIA_TYPE",
      },
    ]);
    const notJson = await request(site, "POST", "/signin", {
      headers: { "content-type": "application/json", origin },
      body: "{password",
    });
    expect(notJson.status).toBe(400);
    const put = await request(site, "PUT", "/signin", { headers: { origin } });
    expect(put.status).toBe(405);
    expect(put.headers.get("allow")).toBe("GET, HEAD, POST");
    expect((await request(site, "GET", "/signout")).status).toBe(405);
    expect(await sessionRows(site)).toBe(0);
  });

  it("send a browser only to a path on this site after signing in", async () => {
    const site = await signInSite();
    for (const [next, expected] of [
      ["/posts/1", "/posts/1"],
      ["//evil.example/", "/"],
      ["https://evil.example/", "/"],
      ["/\\evil.example", "/"],
      ["/a\nb", "/"],
      // A Location header is bytes: other characters go as UTF-8 escapes (the first answered 500:
      // a header cannot hold a character above U+00FF), escapes already there stay as they are.
      ["/日本?q=é#ü", "/%E6%97%A5%E6%9C%AC?q=%C3%A9#%C3%BC"],
      ["/café", "/caf%C3%A9"],
      ["/a%20b?x=%2F", "/a%20b?x=%2F"],
    ] as const) {
      const res = await request(site, "POST", "/signin", {
        headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html", origin },
        body: new URLSearchParams({ password, next }).toString(),
      });
      expect(res.status, next).toBe(303);
      expect(res.headers.get("location"), next).toBe(expected);
    }
  });

  it("live under the site path prefix, with the cookie's Path there too", async () => {
    const site = await signInSite({ engineConfig: { settings: { sitePathPrefix: "/blog" } } });
    expect((await request(site, "GET", "/signin")).status).toBe(404);
    const form = await request(site, "GET", "/blog/signin");
    expect(form.text).toContain('action="/blog/signin"');
    expect(form.text).toContain('name="next" value="/blog/"');
    const res = await request(site, "POST", "/blog/signin", {
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html", origin },
      body: new URLSearchParams({ password, next: "/elsewhere" }).toString(),
    });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/blog/");
    expect(res.headers.get("set-cookie")).toContain("; Path=/blog;");
    const cookie = (res.headers.get("set-cookie") ?? "").split(";")[0] as string;
    expect((await request(site, "GET", "/blog/api/posts", { headers: { cookie } })).status).toBe(200);
  });

  it("are absent, and cookies unread, without the sessions option", async () => {
    const site = await createTestSite();
    expect((await request(site, "GET", "/signin")).status).toBe(404);
    const on = await signInSite();
    const { cookie } = await signInByForm(on);
    const plain = await request(site, "GET", "/api/posts", { headers: { cookie } });
    expect(plain.status).toBe(401);
  });

  it("refuse a short secret or an out-of-range session lifetime when the handler is built", async () => {
    await expect(createTestSite({ sessions: { secret: "too-short" } })).rejects.toThrow(/at least 32/);
    await expect(createTestSite({ sessions: { secret, maxAgeSeconds: 10 } })).rejects.toThrow(
      /maxAgeSeconds/,
    );
  });

  it("let the embedder's authenticate hook decide first", async () => {
    const site = await signInSite({
      authenticate: (req) => (req.headers.get("x-app-user") ? { role: "owner" } : null),
    });
    const res = await request(site, "GET", "/api/posts", { headers: { "x-app-user": "me" } });
    expect(res.status).toBe(200);
  });
});

describe("cross-site writes with the session cookie", () => {
  it("are refused (403, nothing written) unless they come from the site or a listed origin; Bearer requests are unaffected", async () => {
    const site = await signInSite({ corsOrigins: ["https://admin.example"] });
    const { cookie } = await signInByForm(site);
    const post = (headers: Record<string, string>) =>
      request(site, "POST", "/api/posts", {
        headers: { cookie, "content-type": "application/json", ...headers },
        body: newPost,
      });
    const refused: Record<string, string>[] = [
      { origin: "https://evil.example" },
      { origin: "null" },
      {},
      { "sec-fetch-site": "cross-site" },
      { "sec-fetch-site": "same-site", origin: "https://other.localhost" },
    ];
    for (const headers of refused) {
      const res = await post(headers);
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect((res.json() as { code: string }).code).toBe("FORBIDDEN");
    }
    const del = await request(site, "DELETE", "/api/posts/pst_01h0000000000000000000000", {
      headers: { cookie, origin: "https://evil.example" },
    });
    expect(del.status).toBe(403);
    expect(await postCount(site)).toBe(0);

    expect((await post({ origin })).status).toBe(201);
    expect((await post({ "sec-fetch-site": "same-origin" })).status).toBe(201);
    expect((await post({ origin: "https://admin.example" })).status).toBe(201);
    // Reads carry no such check.
    expect(
      (await request(site, "GET", "/api/posts", { headers: { cookie, origin: "https://evil.example" } }))
        .status,
    ).toBe(200);
    // A Bearer token is not sent by a browser on its own: no origin check.
    const bearer = await request(site, "POST", "/api/posts", {
      headers: {
        authorization: "Bearer dev-token",
        origin: "https://evil.example",
        "content-type": "application/json",
      },
      body: newPost,
    });
    expect(bearer.status).toBe(201);
    expect(await postCount(site)).toBe(4);
  });

  it("do not count an origin allowed only by CORS_ORIGINS=*", async () => {
    const site = await signInSite({ corsOrigins: "*" });
    const { cookie } = await signInByForm(site);
    const res = await request(site, "POST", "/api/posts", {
      headers: { cookie, origin: "https://anyone.example", "content-type": "application/json" },
      body: newPost,
    });
    expect(res.status).toBe(403);
  });

  it("include signing in and out from another site (login CSRF)", async () => {
    const site = await signInSite();
    const res = await request(site, "POST", "/signin", {
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "https://evil.example" },
      body: `password=${password}`,
    });
    expect(res.status).toBe(403);
    const { cookie } = await signInByForm(site);
    const out = await request(site, "POST", "/signout", {
      headers: { cookie, origin: "https://evil.example" },
    });
    expect(out.status).toBe(403);
    expect(await sessionRows(site)).toBe(1);
  });
});

describe("rate limits", () => {
  it("refuse sign-in attempts over the limit per client with 429 and Retry-After, without checking the password", async () => {
    let now = 1_000_000;
    let client = "203.0.113.5";
    const site = await signInSite({
      clientAddress: () => client,
      rateLimit: { signInPerMinute: 2, now: () => now },
    });
    const attempt = (pass: string) =>
      request(site, "POST", "/signin", {
        headers: { "content-type": "application/json", origin },
        body: JSON.stringify({ password: pass }),
      });
    expect((await attempt("wrong-1")).status).toBe(401);
    now += 10_000;
    expect((await attempt("wrong-2")).status).toBe(401);
    now += 5_000;
    const limited = await attempt(password);
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("45");
    expect(limited.json()).toMatchObject({ code: "RATE_LIMITED" });
    assertErrorShape(limited.status, limited.json());
    expect(await sessionRows(site)).toBe(0);
    // Another client has its own count.
    client = "198.51.100.7";
    expect((await attempt(password)).status).toBe(200);
    // The window ends: the first client may try again.
    client = "203.0.113.5";
    now += 45_000;
    expect((await attempt(password)).status).toBe(200);
  });

  it("answer a browser over the limit with the form and Retry-After", async () => {
    const site = await signInSite({ rateLimit: { signInPerMinute: 1 } });
    await signInByForm(site);
    const res = await request(site, "POST", "/signin", {
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html", origin },
      body: `password=${password}`,
    });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(res.text).toContain("Too many sign-in attempts");
  });

  it("limit search per client when searchPerMinute is set, and nothing when rateLimit is false", async () => {
    const limited = await createTestSite({ rateLimit: { searchPerMinute: 2 } });
    expect((await limited.call("GET", "/api/search?q=hello")).status).toBe(200);
    expect((await limited.call("GET", "/api/search?q=hello")).status).toBe(200);
    const third = await limited.call("GET", "/api/search?q=hello");
    expect(third.status).toBe(429);
    expect(third.body.code).toBe("RATE_LIMITED");
    expect(Number(third.headers.get("retry-after"))).toBeGreaterThan(0);
    // Other routes are not counted.
    expect((await limited.call("GET", "/api/posts")).status).toBe(200);

    const off = await createTestSite({ rateLimit: false });
    for (let i = 0; i < 5; i++) expect((await off.call("GET", "/api/search?q=hello")).status).toBe(200);
    const byDefault = await createTestSite();
    for (let i = 0; i < 5; i++) expect((await byDefault.call("GET", "/api/search?q=hello")).status).toBe(200);
  });
});
