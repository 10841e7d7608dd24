import { describe, expect, it } from "vitest";
import { createTestSite, expectError, type TestSite } from "./helpers.js";

const multilingual = {
  siteLanguage: "en",
  additionalLanguages: ["fr", "de", "it"],
  multilingualEnabled: true,
};

async function site(extra: object = {}): Promise<TestSite> {
  return createTestSite({ engineConfig: { now: 1_700_000_000, settings: { ...multilingual, ...extra } } });
}

async function create(s: TestSite, body: object) {
  const res = await s.call("POST", "/api/posts", { format: "note", ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; slug: string; language: string | null };
}

const link = (s: TestSite, id: string, postId: string) =>
  s.call("POST", `/api/posts/${id}/translations`, { postId });
const versions = async (s: TestSite, id: string) =>
  ((await s.call("GET", `/api/posts/${id}/translations`)).body.translations as { id: string }[]).map(
    (t) => t.id,
  );

describe("translation groups", () => {
  it("mints a group for two posts, lets a third join, and lists the others with version entries", async () => {
    const s = await site();
    const en = await create(s, { title: "Hello", slug: "hello", language: "en" });
    const fr = await create(s, { title: "Bonjour", slug: "bonjour", language: "fr" });
    const de = await create(s, { slug: "hallo", bodyMarkdown: "", language: "de" });
    const reply = await create(s, { replyToId: en.id, bodyMarkdown: "a reply" });
    expect(await versions(s, en.id)).toEqual([]);
    const ok = await link(s, en.id, fr.id);
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ success: true });
    expect((await link(s, de.id, fr.id)).status).toBe(200);
    const list = await s.call("GET", `/api/posts/${en.id}/translations`);
    expect(list.body.translations).toEqual([
      { id: de.id, slug: "hallo", title: null, label: "hallo", language: "de" },
      { id: fr.id, slug: "bonjour", title: "Bonjour", label: "Bonjour", language: "fr" },
    ]);
    expect(await versions(s, reply.id)).toEqual([de.id, fr.id]);
    expect(await versions(s, de.id)).toEqual([en.id, fr.id]);
    // Two posts already in one group: both sides have a group, 409 (spec § Translation group; 200
    // before), and nothing changes.
    expectError(await link(s, en.id, de.id), 409, "CONFLICT");
    expect(await versions(s, fr.id)).toEqual([de.id, en.id]);
  });

  it("refuses bad links with the right code, changing nothing", async () => {
    const s = await site();
    const en = await create(s, { title: "Hello", language: "en" });
    const fr = await create(s, { title: "Bonjour", language: "fr" });
    const en2 = await create(s, { title: "Hi again", language: "en" });
    const it2 = await create(s, { title: "Ciao", language: "it" });
    const de = await create(s, { title: "Hallo", language: "de" });
    const fr2 = await create(s, { title: "Salut", language: "fr" });
    const reply = await create(s, { replyToId: fr.id, bodyMarkdown: "r" });
    await link(s, en.id, fr.id);
    await link(s, it2.id, de.id);

    expectError(await link(s, en.id, en.id), 400, "VALIDATION_ERROR", "itself");
    expectError(await link(s, en.id, reply.id), 400, "VALIDATION_ERROR", "reply as postId");
    expectError(await link(s, reply.id, de.id), 400, "VALIDATION_ERROR", "reply as id");
    expectError(await link(s, en.id, "nope"), 400, "VALIDATION_ERROR", "malformed postId");
    expectError(await s.call("POST", `/api/posts/${en.id}/translations`, {}), 400, "VALIDATION_ERROR");
    expectError(await link(s, en.id, "pst_01h455vb4pex5vsknk084sn02q"), 404, "NOT_FOUND");
    expectError(await link(s, en2.id, en.id), 409, "CONFLICT", "language already in the group");
    expectError(await link(s, fr2.id, fr.id), 409, "CONFLICT", "same language");
    expectError(await link(s, en.id, it2.id), 409, "CONFLICT", "both in groups");
    expectError(await link(s, de.id, en.id), 409, "CONFLICT", "both in groups, other side");
    expect(await versions(s, en.id)).toEqual([fr.id]);
    expect(await versions(s, it2.id)).toEqual([de.id]);
    expect(await versions(s, fr2.id)).toEqual([]);
    expect(await versions(s, en2.id)).toEqual([]);
  });

  it("needs a language on both sides (409), as on a site that is not multilingual", async () => {
    const s = await createTestSite({ engineConfig: { now: 1_700_000_000 } });
    const a = await create(s, { title: "A" });
    const b = await create(s, { title: "B", language: "fr" });
    expect(a.language).toBeNull();
    expectError(await link(s, a.id, b.id), 409, "CONFLICT");
    expect(await versions(s, b.id)).toEqual([]);
  });

  it("unlinks one post, keeping the others linked; a group of one dissolves", async () => {
    const s = await site();
    const en = await create(s, { title: "Hello", language: "en" });
    const fr = await create(s, { title: "Bonjour", language: "fr" });
    const de = await create(s, { title: "Hallo", language: "de" });
    const it2 = await create(s, { title: "Ciao", language: "it" });
    const fr2 = await create(s, { title: "Salut", language: "fr" });
    await link(s, en.id, fr.id);
    await link(s, en.id, de.id);
    await link(s, it2.id, fr2.id);
    const res = await s.call("DELETE", `/api/posts/${de.id}/translations`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect(await versions(s, de.id)).toEqual([]);
    expect(await versions(s, en.id)).toEqual([fr.id]);
    // Unlinking a post in no group is ok too.
    expect((await s.call("DELETE", `/api/posts/${de.id}/translations`)).status).toBe(200);
    expect((await s.call("DELETE", `/api/posts/${fr.id}/translations`)).status).toBe(200);
    // en is alone: its group is dissolved, so it reads no versions and can join it2's group.
    expect(await versions(s, en.id)).toEqual([]);
    expect((await link(s, en.id, it2.id)).status).toBe(200);
    expect(await versions(s, it2.id)).toEqual([en.id, fr2.id]);
    const reply = await create(s, { replyToId: en.id, bodyMarkdown: "r" });
    expectError(await s.call("DELETE", `/api/posts/${reply.id}/translations`), 400, "VALIDATION_ERROR");
  });

  it("keeps the group consistent when a post in it is deleted", async () => {
    const s = await site();
    const en = await create(s, { title: "Hello", language: "en" });
    const fr = await create(s, { title: "Bonjour", language: "fr" });
    const de = await create(s, { title: "Hallo", language: "de" });
    const it2 = await create(s, { title: "Ciao", language: "it" });
    const de2 = await create(s, { title: "Servus", language: "de" });
    await link(s, en.id, fr.id);
    await link(s, en.id, de.id);
    await link(s, it2.id, de2.id);
    expect((await s.call("DELETE", `/api/posts/${de.id}`)).status).toBe(200);
    expect(await versions(s, en.id)).toEqual([fr.id]);
    // Its language is free again in the group.
    expect((await link(s, en.id, (await create(s, { title: "Guten Tag", language: "de" })).id)).status).toBe(
      200,
    );
    expect((await s.call("DELETE", `/api/posts/${de2.id}`)).status).toBe(200);
    // it2 was left alone: dissolved, so it joins en's group.
    expect(await versions(s, it2.id)).toEqual([]);
    expect((await link(s, it2.id, fr.id)).status).toBe(200);
    expect(await versions(s, en.id)).toHaveLength(3);
  });

  it("joins a group on create with translationOfId, or refuses the whole create", async () => {
    const s = await site();
    const en = await create(s, { title: "Hello", language: "en" });
    const fr = await create(s, { title: "Bonjour", language: "fr", translationOfId: en.id });
    expect(await versions(s, en.id)).toEqual([fr.id]);
    const clash = await s.call("POST", "/api/posts", {
      format: "note",
      title: "Salut",
      language: "fr",
      translationOfId: en.id,
    });
    expectError(clash, 409, "CONFLICT");
    const onReply = await s.call("POST", "/api/posts", {
      format: "note",
      bodyMarkdown: "r",
      replyToId: en.id,
      translationOfId: fr.id,
    });
    expectError(onReply, 400, "VALIDATION_ERROR");
    const missing = await s.call("POST", "/api/posts", {
      format: "note",
      title: "Ciao",
      language: "it",
      translationOfId: "pst_01h455vb4pex5vsknk084sn02q",
    });
    expectError(missing, 404, "NOT_FOUND");
    const posts = (await s.call("GET", "/api/posts")).body.posts;
    expect(posts.map((p: { id: string }) => p.id).sort()).toEqual([en.id, fr.id].sort());
  });
});

describe("GET /api/posts/:id/translations/candidates", () => {
  it("finds published roots by title or body, newest first, in languages the group lacks", async () => {
    const s = await site();
    const en = await create(s, { title: "Cheese guide", language: "en", publishedAt: 1_600_000_000 });
    const fr = await create(s, { title: "Guide du fromage", language: "fr", publishedAt: 1_600_000_100 });
    const de = await create(s, {
      title: "Käse",
      bodyMarkdown: "Ein kleiner Guide",
      language: "de",
      publishedAt: 1_600_000_200,
    });
    const it2 = await create(s, {
      title: "Guida",
      bodyMarkdown: "GUIDE",
      language: "it",
      publishedAt: 1_600_000_300,
    });
    await create(s, { title: "Another guide", language: "en", publishedAt: 1_600_000_400 });
    await create(s, { title: "Brouillon guide", language: "fr", status: "draft" });
    await create(s, { replyToId: fr.id, bodyMarkdown: "guide in a reply" });
    const candidates = async (id: string, query: string) => {
      const res = await s.call("GET", `/api/posts/${id}/translations/candidates?${query}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.candidates as { id: string; language: string }[];
    };
    const first = await candidates(en.id, "q=guide");
    expect(first.map((c) => c.id)).toEqual([it2.id, de.id, fr.id]);
    expect(first[0]).toEqual({ id: it2.id, slug: "guida", label: "Guida", language: "it" });
    expect((await candidates(en.id, "q=guide&limit=2")).map((c) => c.id)).toEqual([it2.id, de.id]);
    expect(await candidates(en.id, "q=guide&limit=500")).toHaveLength(3);
    expect(await candidates(en.id, "q=guide&limit=0")).toHaveLength(1);
    expect(await candidates(en.id, "q=100%25")).toEqual([]);

    // In a group: the group's languages are out, and so are roots in a group of their own.
    await link(s, en.id, fr.id);
    await link(s, de.id, (await create(s, { title: "Guide", language: "fr", publishedAt: 1 })).id);
    expect((await candidates(en.id, "q=guide")).map((c) => c.id)).toEqual([it2.id]);
    // Not in a group: roots in groups may be offered.
    const lone = await create(s, { title: "Solo", language: "it" });
    expect((await candidates(lone.id, "q=guide")).map((c) => c.language).sort()).toEqual([
      "de",
      "en",
      "en",
      "fr",
      "fr",
    ]);

    expectError(await s.call("GET", `/api/posts/${en.id}/translations/candidates`), 400, "VALIDATION_ERROR");
    expectError(
      await s.call("GET", `/api/posts/${en.id}/translations/candidates?q=`),
      400,
      "VALIDATION_ERROR",
    );
    expectError(
      await s.call("GET", `/api/posts/${en.id}/translations/candidates?q=${"x".repeat(201)}`),
      400,
      "VALIDATION_ERROR",
    );
    expect(await candidates(en.id, `q=${"x".repeat(200)}`)).toEqual([]);
    // The same rules and words as search's q: 200 characters as sent, then not blank.
    const blank = await s.call("GET", `/api/posts/${en.id}/translations/candidates?q=%20%20`);
    expect(blank.body.error).toBe("Invalid input: q: Expected a non-blank query");
    const long = await s.call("GET", `/api/posts/${en.id}/translations/candidates?q=${"x".repeat(200)}%20`);
    expect(long.body.error).toBe("Invalid input: q: Expected at most 200 characters");
  });
});

describe("candidates beyond ASCII", () => {
  it("match without regard to case or accents in any script, on every database, in title or body only", async () => {
    const s = await site();
    const en = await create(s, { title: "About us", language: "en" });
    const de = await create(s, { title: "Über uns", language: "de", publishedAt: 1_600_000_300 });
    const fr = await create(s, {
      title: "Qui sommes-nous",
      bodyMarkdown: "L'ÉQUIPE et son ÉLAN",
      language: "fr",
      publishedAt: 1_600_000_200,
    });
    // A hit in a field that is neither the title nor the body does not count.
    await create(s, { title: "Ailleurs", summary: "über élan", language: "fr", publishedAt: 1_600_000_100 });
    const ids = async (q: string) => {
      const res = await s.call(
        "GET",
        `/api/posts/${en.id}/translations/candidates?q=${encodeURIComponent(q)}`,
      );
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return (res.body.candidates as { id: string }[]).map((candidate) => candidate.id);
    };
    // Before, `lower()` folded ASCII only on SQLite, and nothing at all on PostgreSQL under the C locale.
    expect(await ids("über")).toEqual([de.id]);
    expect(await ids("ÜBER UNS")).toEqual([de.id]);
    expect(await ids("uber")).toEqual([de.id]);
    expect(await ids("élan")).toEqual([fr.id]);
    expect(await ids("equipe")).toEqual([fr.id]);
    expect(await ids("\u0301")).toEqual([]);
    const ru = await create(s, { title: "ЁЛКА", language: "ru" });
    expect(await ids("ёлка")).toEqual([ru.id]);
    // Past a page of newer posts that hold the text only in their summaries.
    const older = await create(s, { title: "Marker", language: "de", publishedAt: 1_500_000_000 });
    for (let n = 0; n < 25; n++) {
      await create(s, {
        title: `Other ${n}`,
        summary: "a marker",
        language: "fr",
        publishedAt: 1_600_000_400 + n,
      });
    }
    expect(await ids("MARKER")).toEqual([older.id]);
  });
});

describe("GET /api/posts/:id/translations/resolve", () => {
  it("answers every kind", async () => {
    const unprefixed = await site({ sitePathPrefix: "/blog" });
    const s: TestSite = { ...unprefixed, call: (m, path, b, h) => unprefixed.call(m, `/blog${path}`, b, h) };
    const en = await create(s, { title: "Hello", slug: "hello", language: "en" });
    const fr = await create(s, { title: "Bonjour", slug: "bonjour", language: "fr" });
    const frReply = await create(s, { replyToId: fr.id, slug: "reponse", bodyMarkdown: "r" });
    const draft = await create(s, { title: "Entwurf", slug: "entwurf", language: "de", status: "draft" });
    await create(s, { title: "Again", slug: "again", language: "en" });
    const it2 = await create(s, { title: "Ciao", slug: "ciao", language: "it" });
    const de2 = await create(s, { title: "Hallo", slug: "hallo", language: "de" });
    const fr3 = await create(s, { title: "Salut", slug: "salut", language: "fr" });
    const pathed = await create(s, { title: "Dated", path: "2024/01/dated", language: "de" });
    const resolve = async (id: string, url: string) => {
      const res = await s.call("GET", `/api/posts/${id}/translations/resolve?url=${encodeURIComponent(url)}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.resolution;
    };
    const ok = await resolve(en.id, "http://localhost/blog/bonjour?x=1#top");
    expect(ok).toEqual({
      kind: "ok",
      address: "/bonjour",
      candidate: { id: fr.id, slug: "bonjour", label: "Bonjour", language: "fr" },
    });
    expect((await resolve(en.id, "/blog/fr/bonjour/")).kind).toBe("ok");
    expect((await resolve(en.id, "bonjour")).kind).toBe("ok");
    // A reply's address names its Thread.
    expect(await resolve(en.id, "/reponse")).toMatchObject({ kind: "ok", candidate: { id: fr.id } });
    // A custom URL alias (the post's path) and a stored redirect lead to the post.
    expect(await resolve(en.id, "/blog/2024/01/dated")).toMatchObject({
      kind: "ok",
      candidate: { id: pathed.id },
    });
    expect(
      (
        await s.call("POST", "/api/custom-urls", {
          path: "/old-bonjour",
          targetType: "redirect",
          toPath: "/bonjour",
        })
      ).status,
    ).toBe(201);
    expect(await resolve(en.id, "/old-bonjour")).toMatchObject({ kind: "ok", address: "/bonjour" });
    expect(
      (
        await s.call("POST", "/api/custom-urls", {
          path: "/elsewhere",
          targetType: "redirect",
          toPath: "https://example.org/x",
        })
      ).status,
    ).toBe(201);
    expect((await resolve(en.id, "/elsewhere")).kind).toBe("external");

    expect(await resolve(en.id, "https://example.org/bonjour")).toEqual({
      kind: "external",
      address: "https://example.org/bonjour",
      candidate: null,
    });
    expect((await resolve(en.id, "mailto:a@b.c")).kind).toBe("external");
    expect(await resolve(en.id, "/nothing-here")).toMatchObject({ kind: "not_found", candidate: null });
    expect((await resolve(en.id, "/blog/")).kind).toBe("not_a_post");
    const collection = await s.call("POST", "/api/collections", { slug: "recipes", title: "Recipes" });
    expect(collection.status, JSON.stringify(collection.body)).toBe(201);
    expect(await resolve(en.id, "/blog/recipes")).toEqual({
      kind: "not_a_post",
      address: "/recipes",
      candidate: null,
    });
    expect((await resolve(en.id, "/hello")).kind).toBe("same_thread");
    expect((await resolve(frReply.id, "/reponse")).kind).toBe("same_thread");
    expect(await resolve(en.id, "/entwurf")).toMatchObject({
      kind: "unpublished",
      candidate: { id: draft.id },
    });
    expect((await resolve(en.id, "/again")).kind).toBe("same_language");

    const bare = await createTestSite({ engineConfig: { now: 1_700_000_000 } });
    const a = await create(bare, { title: "A", slug: "a" });
    await create(bare, { title: "B", slug: "b", language: "fr" });
    const noLanguage = await bare.call("GET", `/api/posts/${a.id}/translations/resolve?url=/b`);
    expect(noLanguage.body.resolution.kind).toBe("no_language");

    await link(s, en.id, fr.id);
    await link(s, it2.id, de2.id);
    // en's group has fr: another French root is taken.
    expect((await resolve(en.id, "/salut")).kind).toBe("language_taken");
    // Both in groups, two or one (a link would be 409; the same group read "ok" before).
    expect(await resolve(en.id, "/ciao")).toMatchObject({ kind: "group_conflict", language: "it" });
    expect(await resolve(en.id, "/bonjour")).toMatchObject({ kind: "group_conflict", language: "fr" });
    // fr3 has no group, but it2's group holds... Italian; a German post cannot join a group with German.
    expect(await resolve(fr3.id, "/ciao")).toMatchObject({ kind: "ok" });
    expect(await resolve(pathed.id, "/ciao")).toMatchObject({ kind: "group_language_taken", language: "de" });

    expectError(await s.call("GET", `/api/posts/${en.id}/translations/resolve`), 400, "VALIDATION_ERROR");
    expectError(
      await s.call("GET", `/api/posts/${en.id}/translations/resolve?url=/${"x".repeat(2048)}`),
      400,
      "VALIDATION_ERROR",
    );
  });
});

describe("concurrent links", () => {
  it("never put two posts of one language in a group", async () => {
    const s = await createTestSite({
      engineConfig: { now: 1_700_000_000, settings: multilingual, poolSize: 8 },
    });
    const en = await create(s, { title: "Hello", language: "en" });
    const fr = await create(s, { title: "Bonjour", language: "fr" });
    await link(s, en.id, fr.id);
    const germans = await Promise.all(
      Array.from({ length: 8 }, (_, i) => create(s, { title: `Hallo ${i}`, language: "de" })),
    );
    const italians = await Promise.all(
      Array.from({ length: 4 }, (_, i) => create(s, { title: `Ciao ${i}`, language: "it" })),
    );
    const answers = await Promise.all([
      ...germans.map((de, i) => link(s, i % 2 === 0 ? en.id : fr.id, de.id)),
      // Pairs that would each form a group of their own with the same German post race too.
      ...italians.map((it2) => link(s, it2.id, germans[7]?.id as string)),
    ]);
    const statuses = answers.map((a) => a.status);
    for (const answer of answers) if (answer.status !== 200) expectError(answer, 409, "CONFLICT");
    const members = [en.id, ...(await versions(s, en.id))];
    const languages = await Promise.all(
      members.map(async (id) => (await s.call("GET", `/api/posts/${id}`)).body.language as string),
    );
    expect(new Set(languages).size).toBe(languages.length);
    expect(languages.filter((l) => l === "de")).toHaveLength(1);
    // Every post's group lists the same members.
    for (const id of members) expect([id, ...(await versions(s, id))].sort()).toEqual([...members].sort());
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThanOrEqual(1);
  });
});
