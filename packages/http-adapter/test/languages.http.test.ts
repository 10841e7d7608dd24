import { describe, expect, it } from "vitest";
import { createTestSite, expectError, type TestSite } from "./helpers.js";

const multilingual = { siteLanguage: "en", additionalLanguages: ["fr", "de"], multilingualEnabled: true };

async function site(settings: object = multilingual): Promise<TestSite> {
  return createTestSite({ engineConfig: { now: 1_700_000_000, settings } });
}

async function create(s: TestSite, body: object) {
  const res = await s.call("POST", "/api/posts", { format: "note", ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

describe("post language on create", () => {
  it("is null until the site is multilingual, unless given; given tags are stored canonical", async () => {
    const s = await site({});
    expect(
      (await create(s, { title: "Bonjour tout le monde, ceci est un texte en français" })).language,
    ).toBeNull();
    expect((await create(s, { title: "Tagged", language: "EN-us" })).language).toBe("en-US");
  });

  it("refuses a malformed tag with 400 naming language, creating nothing", async () => {
    const s = await site();
    for (const language of ["e", "english!", "en--US", "x-private", ""]) {
      const res = await s.call("POST", "/api/posts", { format: "note", title: "Bad", language });
      expectError(res, 400, "VALIDATION_ERROR", language);
      expect(res.body.details.fieldErrors.language).toBeDefined();
    }
    expect((await s.call("GET", "/api/posts")).body.posts).toEqual([]);
  });

  it("detects an untagged root's language among the site's languages, else the site language", async () => {
    const s = await site();
    const fr = await create(s, {
      title: "Le voyage",
      bodyMarkdown: "Nous sommes partis tôt le matin pour visiter la vieille ville et ses églises.",
    });
    expect(fr.language).toBe("fr");
    const de = await create(s, {
      bodyMarkdown: "Das Wetter ist heute schön und wir gehen am Nachmittag in den Park spazieren.",
    });
    expect(de.language).toBe("de");
    const en = await create(s, { bodyMarkdown: "We walked along the river and talked about the weather." });
    expect(en.language).toBe("en");
    // Nothing to tell by: the site's primary language.
    expect((await create(s, { bodyMarkdown: "ok" })).language).toBe("en");
  });

  it("gives replies the Thread's language, whatever they send", async () => {
    const s = await site();
    const root = await create(s, { title: "Root", language: "fr" });
    const reply = await create(s, {
      replyToId: root.id,
      bodyMarkdown: "The reply is in English words here.",
    });
    expect(reply.language).toBe("fr");
    expect((await create(s, { replyToId: root.id, bodyMarkdown: "x", language: "de" })).language).toBe("fr");
    // A malformed tag is still refused.
    const res = await s.call("POST", "/api/posts", {
      format: "note",
      replyToId: root.id,
      bodyMarkdown: "y",
      language: "??",
    });
    expectError(res, 400, "VALIDATION_ERROR");
    expect((await s.call("GET", `/api/threads/${root.id}`)).body.postCount).toBe(3);
    expect((await s.call("GET", `/api/posts?lang=fr`)).body.posts).toHaveLength(3);
  });
});

describe("PUT /api/posts/:id/language", () => {
  it("sets the root and every reply, from any post of the Thread", async () => {
    const s = await site();
    const root = await create(s, { title: "Root", language: "en" });
    const r1 = await create(s, { replyToId: root.id, bodyMarkdown: "one" });
    const r2 = await create(s, { replyToId: r1.id, bodyMarkdown: "two" });
    const res = await s.call("PUT", `/api/posts/${r2.id}/language`, { language: "de-at" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, language: "de-AT" });
    for (const id of [root.id, r1.id, r2.id]) {
      expect((await s.call("GET", `/api/posts/${id}`)).body.language).toBe("de-AT");
    }
  });

  it("moves updatedAt of every post it changes, and of none it leaves as it was (spec: last row write)", async () => {
    const s = await site();
    const root = await create(s, { title: "Root", language: "en" });
    const reply = await create(s, { replyToId: root.id, bodyMarkdown: "one" });
    const updatedAt = async (id: string) => (await s.call("GET", `/api/posts/${id}`)).body.updatedAt;
    s.clock.advance(100);
    expect((await s.call("PUT", `/api/posts/${reply.id}/language`, { language: "fr" })).status).toBe(200);
    expect([await updatedAt(root.id), await updatedAt(reply.id)]).toEqual([1_700_000_100, 1_700_000_100]);
    s.clock.advance(100);
    expect((await s.call("PUT", `/api/posts/${root.id}/language`, { language: "fr" })).status).toBe(200);
    expect([await updatedAt(root.id), await updatedAt(reply.id)]).toEqual([1_700_000_100, 1_700_000_100]);
    // Through an edit of the root, its replies move too.
    s.clock.advance(100);
    expect((await s.call("PUT", `/api/posts/${root.id}`, { language: "de" })).status).toBe(200);
    expect([await updatedAt(root.id), await updatedAt(reply.id)]).toEqual([1_700_000_300, 1_700_000_300]);
  });

  it("answers 400 for a malformed or missing tag and 404 for an unknown post, changing nothing", async () => {
    const s = await site();
    const root = await create(s, { title: "Root", language: "en" });
    expectError(
      await s.call("PUT", `/api/posts/${root.id}/language`, { language: "12" }),
      400,
      "VALIDATION_ERROR",
    );
    expectError(await s.call("PUT", `/api/posts/${root.id}/language`, {}), 400, "VALIDATION_ERROR");
    expectError(
      await s.call("PUT", `/api/posts/${root.id}/language`, { language: null }),
      400,
      "VALIDATION_ERROR",
    );
    expectError(
      await s.call("PUT", "/api/posts/pst_01h455vb4pex5vsknk084sn02q/language", { language: "fr" }),
      404,
      "NOT_FOUND",
    );
    expect((await s.call("GET", `/api/posts/${root.id}`)).body.language).toBe("en");
  });

  it("answers 409 when another post of the translation group holds that language", async () => {
    const s = await site();
    const en = await create(s, { title: "Hello", language: "en" });
    const fr = await create(s, { title: "Bonjour", language: "fr" });
    const reply = await create(s, { replyToId: fr.id, bodyMarkdown: "r" });
    expect((await s.call("POST", `/api/posts/${en.id}/translations`, { postId: fr.id })).status).toBe(200);
    expectError(await s.call("PUT", `/api/posts/${reply.id}/language`, { language: "en" }), 409, "CONFLICT");
    expectError(await s.call("PUT", `/api/posts/${fr.id}`, { language: "en" }), 409, "CONFLICT");
    expectError(await s.call("PUT", `/api/posts/${fr.id}`, { language: null }), 409, "CONFLICT");
    expect((await s.call("GET", `/api/posts/${reply.id}`)).body.language).toBe("fr");
    expect((await s.call("PUT", `/api/posts/${fr.id}/language`, { language: "fr-CA" })).status).toBe(200);
    expect((await s.call("GET", `/api/posts/${reply.id}`)).body.language).toBe("fr-CA");
  });
});

describe("lang filters", () => {
  it("filters the post list and the Thread lists by the canonical tag", async () => {
    const s = await site();
    const en = await create(s, { title: "Hello", language: "en-US" });
    const fr = await create(s, { title: "Bonjour", language: "fr" });
    await create(s, { replyToId: fr.id, bodyMarkdown: "réponse" });
    const ids = (list: { id: string }[]) => list.map((p) => p.id);
    const posts = await s.call("GET", "/api/posts?lang=fr");
    expect(posts.body.posts).toHaveLength(2);
    expect(ids((await s.call("GET", "/api/posts?lang=EN-us")).body.posts)).toEqual([en.id]);
    expect(
      (await s.call("GET", "/api/threads?lang=fr")).body.threads.map((t: { id: string }) => t.id),
    ).toEqual([fr.id]);
    expect(
      (await s.call("GET", "/api/public/threads?lang=en-us")).body.threads.map((t: { id: string }) => t.id),
    ).toEqual([en.id]);
    expectError(await s.call("GET", "/api/posts?lang=!!"), 400, "VALIDATION_ERROR");
    expectError(await s.call("GET", "/api/public/threads?lang=!!"), 400, "VALIDATION_ERROR");
  });
});

describe("public reads in a language view", () => {
  it("answers a translated Thread with its version in that language", async () => {
    const s = await site();
    const en = await create(s, { title: "Hello", slug: "hello", language: "en" });
    const fr = await create(s, { title: "Bonjour", slug: "bonjour", language: "fr" });
    const frReply = await create(s, { replyToId: fr.id, slug: "reponse", bodyMarkdown: "réponse" });
    const draftDe = await create(s, { title: "Hallo", slug: "hallo", language: "de", status: "draft" });
    await s.call("POST", `/api/posts/${en.id}/translations`, { postId: fr.id });
    await s.call("POST", `/api/posts/${en.id}/translations`, { postId: draftDe.id });

    const post = await s.call("GET", "/api/public/posts/hello?lang=fr");
    expect(post.body).toMatchObject({ id: fr.id, language: "fr", slug: "bonjour" });
    expect((await s.call("GET", "/api/public/posts/hello")).body.id).toBe(en.id);
    expect((await s.call("GET", "/api/public/posts/bonjour?lang=en")).body.id).toBe(en.id);
    // No readable version in that language (none, or a draft): the post itself.
    expect((await s.call("GET", "/api/public/posts/hello?lang=de")).body.id).toBe(en.id);
    expect((await s.call("GET", "/api/public/posts/hello?lang=it")).body.id).toBe(en.id);
    // A reply is not translated on its own.
    expect((await s.call("GET", "/api/public/posts/reponse?lang=en")).body.id).toBe(frReply.id);

    const thread = await s.call("GET", "/api/public/threads/hello?lang=fr");
    expect(thread.body).toMatchObject({ id: fr.id, postCount: 2 });
    expect((await s.call("GET", "/api/public/threads/reponse?lang=en")).body.id).toBe(en.id);
    const posts = await s.call("GET", "/api/public/threads/hello/posts?lang=fr");
    expect(posts.body.posts.map((p: { id: string }) => p.id)).toEqual([fr.id, frReply.id]);
    expectError(await s.call("GET", "/api/public/threads/hello?lang=%21"), 400, "VALIDATION_ERROR");
  });
});
