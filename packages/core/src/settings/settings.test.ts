import type { KyselyPlugin } from "kysely";
import { describe, expect, it } from "vitest";
import { codeOf, openTestEngine } from "../../test/support.js";
import { SiteVersionReader } from "../db/site-version.js";
import { createEngine } from "../engine.js";
import { isEngineError } from "../errors.js";
import { fixedClock } from "../shared/time.js";
import { createTestEngine, testDatabaseKind } from "../testing/test-engine.js";
import { settingKeys } from "./setting-keys.js";
import { readStoredSettings, resolveKeys, SettingsStore } from "./settings-store.js";
import { writeSettings } from "./write-settings.js";

const silent = { info: () => {}, warn: () => {}, error: () => {} };

/** The error an operation throws (its code and details), or "OK". */
async function errorOf(
  promise: Promise<unknown>,
): Promise<{ code: string; details?: Record<string, unknown> }> {
  try {
    await promise;
  } catch (err) {
    if (isEngineError(err)) return { code: err.code, ...(err.details ? { details: err.details } : {}) };
    throw err;
  }
  return { code: "OK" };
}

describe("settings.get", () => {
  it("lists every key with its built-in default", async () => {
    const { engine } = await openTestEngine();
    const answer = await engine.settings.get({});
    expect(Object.keys(answer.settings)).toEqual([...settingKeys]);
    expect(answer.settings).toEqual({
      SITE_NAME: "Quire",
      SITE_DESCRIPTION: "",
      SITE_LANGUAGE: "en",
      ADDITIONAL_LANGUAGES: "",
      MULTILINGUAL_ENABLED: "false",
      TIME_ZONE: "UTC",
      PAGE_SIZE: "25",
      ARCHIVE_DEFAULT_LAYOUT: "list",
      MAIN_RSS_FEED: "latest",
      RSS_FEEDS_ENABLED: "true",
      RSS_FEED_LIMIT: "20",
      RSS_PUBLISH_DELAY_SECONDS: "0",
      NOINDEX: "false",
      DISCOVER: "off",
      PUBLIC_API_ENABLED: "true",
      SITE_FOOTER: "",
      SITE_PATH_PREFIX: "",
    });
    expect(new Set(Object.values(answer.sources))).toEqual(new Set(["default"]));
  });

  it("a stored override beats the environment, which beats the default; delete falls back", async () => {
    const { engine } = await openTestEngine({
      settings: { siteName: "From env", timeZone: "Europe/Paris", sitePathPrefix: "/blog" },
    });
    let answer = await engine.settings.get({});
    expect(answer.settings.SITE_NAME).toBe("From env");
    expect(answer.sources.SITE_NAME).toBe("environment");
    expect(answer.settings.TIME_ZONE).toBe("Europe/Paris");
    expect(answer.settings.SITE_PATH_PREFIX).toBe("/blog");
    expect(answer.sources.PAGE_SIZE).toBe("default");

    answer = await engine.settings.update({ SITE_NAME: "Stored" });
    expect(answer.settings.SITE_NAME).toBe("Stored");
    expect(answer.sources.SITE_NAME).toBe("stored");
    expect((await engine.siteSettings()).siteName).toBe("Stored");

    answer = await engine.settings.delete({ key: "SITE_NAME" });
    expect(answer.settings.SITE_NAME).toBe("From env");
    expect(answer.sources.SITE_NAME).toBe("environment");
    expect((await engine.siteSettings()).siteName).toBe("From env");
    // Deleting a key without an override answers the same.
    expect(await engine.settings.delete({ key: "SITE_NAME" })).toEqual(answer);
  });

  it("an invalid fallback stops the engine from being created", async () => {
    const { engine } = await openTestEngine();
    for (const settings of [
      { timeZone: "Mars/Olympus" },
      { siteLanguage: "en_US" },
      { pageSize: 0 },
      { additionalLanguages: ["fr", "fr"] },
      { archiveDefaultLayout: "table" as never },
    ]) {
      let code = "OK";
      try {
        createEngine({ db: engine.context.db, settings });
      } catch (err) {
        code = isEngineError(err) ? err.code : String(err);
      }
      expect(code, JSON.stringify(settings)).toBe("CONFIGURATION_ERROR");
    }
    for (const sitePathPrefix of ["/a b", "/a//b", "/blog?x", "/a/../b", "/."]) {
      expect(
        () => createEngine({ db: engine.context.db, settings: { sitePathPrefix } }),
        sitePathPrefix,
      ).toThrow(/SITE_PATH_PREFIX/);
    }
    // A path prefix is read as the handler reads it.
    for (const [given, read] of [
      ["blog/", "/blog"],
      ["/", ""],
      ["/a/b//", "/a/b"],
    ]) {
      const prefixed = createEngine({ db: engine.context.db, settings: { sitePathPrefix: given } });
      expect(prefixed.context.settings.sitePathPrefix).toBe(read);
    }
    // Fallbacks are canonicalised like stored values.
    const canonical = createEngine({
      db: engine.context.db,
      settings: { siteLanguage: "pt-br", timeZone: "europe/paris" },
    });
    expect(canonical.context.settings).toMatchObject({ siteLanguage: "pt-BR", timeZone: "Europe/Paris" });
  });
});

describe("settings.update", () => {
  const valid: [string, string, string][] = [
    ["SITE_NAME", "  My site  ", "My site"],
    ["SITE_DESCRIPTION", "Notes\nand links", "Notes\nand links"],
    ["SITE_DESCRIPTION", "", ""],
    ["SITE_LANGUAGE", "pt-br", "pt-BR"],
    ["SITE_LANGUAGE", "ZH-hant-tw", "zh-Hant-TW"],
    ["ADDITIONAL_LANGUAGES", " fr , DE-de", "fr,de-DE"],
    ["ADDITIONAL_LANGUAGES", "", ""],
    ["MULTILINGUAL_ENABLED", "false", "false"],
    ["TIME_ZONE", "europe/paris", "Europe/Paris"],
    ["TIME_ZONE", "America/Argentina/Buenos_Aires", "America/Argentina/Buenos_Aires"],
    ["PAGE_SIZE", "1", "1"],
    ["PAGE_SIZE", "100", "100"],
    ["ARCHIVE_DEFAULT_LAYOUT", "grid", "grid"],
    ["MAIN_RSS_FEED", "featured", "featured"],
    ["RSS_FEEDS_ENABLED", "false", "false"],
    ["RSS_FEED_LIMIT", "200", "200"],
    ["RSS_PUBLISH_DELAY_SECONDS", "0", "0"],
    ["RSS_PUBLISH_DELAY_SECONDS", "86400", "86400"],
    ["NOINDEX", "true", "true"],
    ["PUBLIC_API_ENABLED", "false", "false"],
    ["SITE_FOOTER", "© 2026 Me", "© 2026 Me"],
  ];
  const invalid: [string, unknown][] = [
    ["SITE_NAME", ""],
    ["SITE_NAME", "   "],
    ["SITE_NAME", "two\nlines"],
    ["SITE_NAME", "x".repeat(121)],
    ["SITE_NAME", "bell\u0007"],
    ["SITE_DESCRIPTION", "x".repeat(501)],
    ["SITE_LANGUAGE", "en_US"],
    ["SITE_LANGUAGE", "english"],
    ["SITE_LANGUAGE", "e"],
    ["SITE_LANGUAGE", "en-u-ca-buddhist"],
    ["SITE_LANGUAGE", ""],
    ["ADDITIONAL_LANGUAGES", "fr,,de"],
    ["ADDITIONAL_LANGUAGES", "fr,FR"],
    ["ADDITIONAL_LANGUAGES", "fr;de"],
    [
      "ADDITIONAL_LANGUAGES",
      Array.from({ length: 21 }, (_, i) => `a${String.fromCharCode(97 + i)}`).join(","),
    ],
    ["MULTILINGUAL_ENABLED", "yes"],
    ["MULTILINGUAL_ENABLED", "1"],
    ["TIME_ZONE", "Mars/Olympus"],
    ["TIME_ZONE", "+01:00"],
    ["TIME_ZONE", ""],
    ["PAGE_SIZE", "0"],
    ["PAGE_SIZE", "101"],
    ["PAGE_SIZE", "1e1"],
    ["PAGE_SIZE", " 5"],
    ["PAGE_SIZE", "5.0"],
    ["ARCHIVE_DEFAULT_LAYOUT", "table"],
    ["ARCHIVE_DEFAULT_LAYOUT", "LIST"],
    ["MAIN_RSS_FEED", "all"],
    ["RSS_FEEDS_ENABLED", "on"],
    ["RSS_FEED_LIMIT", "0"],
    ["RSS_FEED_LIMIT", "201"],
    ["RSS_PUBLISH_DELAY_SECONDS", "-1"],
    ["RSS_PUBLISH_DELAY_SECONDS", "86401"],
    ["NOINDEX", "TRUE"],
    ["PUBLIC_API_ENABLED", "0"],
    ["SITE_FOOTER", "x".repeat(2001)],
    // Not strings.
    ["PAGE_SIZE", 25],
    ["NOINDEX", true],
    ["SITE_NAME", null],
    ["ADDITIONAL_LANGUAGES", ["fr"]],
  ];

  it.each(valid)("%s accepts %j as %j", async (key, text, canonical) => {
    const { engine } = await openTestEngine();
    const answer = await engine.settings.update({ [key]: text });
    expect(answer.settings[key as "SITE_NAME"]).toBe(canonical);
    expect(answer.sources[key as "SITE_NAME"]).toBe("stored");
    expect(answer).not.toHaveProperty("rejectedKeys");
    expect((await engine.settings.get({})).settings[key as "SITE_NAME"]).toBe(canonical);
  });

  it("refuses every invalid value with a 400 naming its key, and writes nothing beside it", async () => {
    const { engine } = await openTestEngine();
    for (const [key, value] of invalid) {
      // A valid key beside the invalid one: neither is written.
      const beside = key === "SITE_NAME" ? { NOINDEX: "true" } : { SITE_NAME: "Changed" };
      const error = await errorOf(engine.settings.update({ ...beside, [key]: value } as never));
      expect(error.code, `${key}=${JSON.stringify(value)}`).toBe("VALIDATION_ERROR");
      expect(
        Object.keys((error.details?.fieldErrors ?? {}) as object),
        `${key}=${JSON.stringify(value)}`,
      ).toContain(key);
    }
    const after = await engine.settings.get({});
    expect(after.settings.SITE_NAME).toBe("Quire");
    expect(after.settings.NOINDEX).toBe("false");
    expect(await readStoredSettings(engine.context.db)).toEqual(new Map());
  });

  it("refuses a body that is not an object of strings", async () => {
    const { engine } = await openTestEngine();
    for (const body of [["SITE_NAME", "x"], "SITE_NAME=x", 5, null]) {
      expect(await codeOf(engine.settings.update(body as never)), JSON.stringify(body)).toBe(
        "VALIDATION_ERROR",
      );
    }
    expect(await codeOf(engine.settings.update({ SITE_NAME: "nul\u0000" }))).toBe("VALIDATION_ERROR");
    expect(await readStoredSettings(engine.context.db)).toEqual(new Map());
  });

  it("lists unknown and environment-only keys in rejectedKeys and writes the rest", async () => {
    const { engine } = await openTestEngine();
    const answer = await engine.settings.update({
      SITE_NAME: "Kept",
      site_name: "lower case is another key",
      SITE_PATH_PREFIX: "/elsewhere",
      NOPE: "x",
    });
    expect(answer.rejectedKeys).toEqual(["site_name", "SITE_PATH_PREFIX", "NOPE"]);
    expect(answer.settings.SITE_NAME).toBe("Kept");
    expect(answer.settings.SITE_PATH_PREFIX).toBe("");
    expect([...(await readStoredSettings(engine.context.db)).keys()]).toEqual(["SITE_NAME"]);
  });

  it("answers 400 with details.rejectedKeys when every key is rejected", async () => {
    const { engine } = await openTestEngine();
    const error = await errorOf(engine.settings.update({ NOPE: "x", SITE_PATH_PREFIX: "/blog" }));
    expect(error.code).toBe("VALIDATION_ERROR");
    expect(error.details?.rejectedKeys).toEqual(["NOPE", "SITE_PATH_PREFIX"]);
    expect((await errorOf(engine.settings.update({}))).code).toBe("VALIDATION_ERROR");
    // An invalid value next to a rejected key: the 400 names both.
    const mixed = await errorOf(engine.settings.update({ NOPE: "x", PAGE_SIZE: "0" }));
    expect(mixed.details).toMatchObject({
      rejectedKeys: ["NOPE"],
      fieldErrors: { PAGE_SIZE: [expect.any(String)] },
    });
    expect(await readStoredSettings(engine.context.db)).toEqual(new Map());
  });
});

describe("language settings", () => {
  it("refuses the primary language among the additional ones, whichever key is written", async () => {
    const { engine } = await openTestEngine();
    let error = await errorOf(engine.settings.update({ ADDITIONAL_LANGUAGES: "fr,EN" }));
    expect(error.code).toBe("VALIDATION_ERROR");
    expect(Object.keys(error.details?.fieldErrors as object)).toEqual(["ADDITIONAL_LANGUAGES"]);
    await engine.settings.update({ ADDITIONAL_LANGUAGES: "fr,de" });
    error = await errorOf(engine.settings.update({ SITE_LANGUAGE: "fr" }));
    expect(Object.keys(error.details?.fieldErrors as object)).toEqual(["SITE_LANGUAGE"]);
    // Moving the primary and the list in one write is fine.
    const answer = await engine.settings.update({ SITE_LANGUAGE: "fr", ADDITIONAL_LANGUAGES: "en,de" });
    expect(answer.settings).toMatchObject({ SITE_LANGUAGE: "fr", ADDITIONAL_LANGUAGES: "en,de" });
  });

  it("a multilingual site needs a second language, checked against the values after the write", async () => {
    const { engine } = await openTestEngine();
    let error = await errorOf(engine.settings.update({ MULTILINGUAL_ENABLED: "true" }));
    expect(error.code).toBe("VALIDATION_ERROR");
    expect(Object.keys(error.details?.fieldErrors as object)).toEqual(["MULTILINGUAL_ENABLED"]);
    const answer = await engine.settings.update({ MULTILINGUAL_ENABLED: "true", ADDITIONAL_LANGUAGES: "fr" });
    expect(answer.settings).toMatchObject({ MULTILINGUAL_ENABLED: "true", ADDITIONAL_LANGUAGES: "fr" });
    expect(await engine.siteSettings()).toMatchObject({
      multilingualEnabled: true,
      additionalLanguages: ["fr"],
    });
    error = await errorOf(engine.settings.update({ ADDITIONAL_LANGUAGES: "" }));
    expect(Object.keys(error.details?.fieldErrors as object)).toEqual(["ADDITIONAL_LANGUAGES"]);
    expect((await errorOf(engine.settings.delete({ key: "ADDITIONAL_LANGUAGES" }))).code).toBe(
      "VALIDATION_ERROR",
    );
    expect((await engine.settings.get({})).settings.ADDITIONAL_LANGUAGES).toBe("fr");
  });

  it("the environment's languages count: a multilingual fallback site may store the switch alone", async () => {
    const { engine } = await openTestEngine({
      settings: { siteLanguage: "de", additionalLanguages: ["en"] },
    });
    const answer = await engine.settings.update({ MULTILINGUAL_ENABLED: "true" });
    expect(answer.settings).toMatchObject({
      SITE_LANGUAGE: "de",
      ADDITIONAL_LANGUAGES: "en",
      MULTILINGUAL_ENABLED: "true",
    });
    expect(answer.sources.ADDITIONAL_LANGUAGES).toBe("environment");
  });

  it("removing a language that posts are written in is 409 LANGUAGE_IN_USE and changes nothing", async () => {
    const { engine } = await openTestEngine();
    await engine.settings.update({ ADDITIONAL_LANGUAGES: "fr,de" });
    await engine.posts.create({ format: "note", title: "Bonjour", language: "fr" });
    const error = await errorOf(engine.settings.update({ ADDITIONAL_LANGUAGES: "de" }));
    expect(error).toMatchObject({ code: "LANGUAGE_IN_USE", details: { language: "fr" } });
    expect((await errorOf(engine.settings.delete({ key: "ADDITIONAL_LANGUAGES" }))).code).toBe(
      "LANGUAGE_IN_USE",
    );
    expect((await engine.settings.get({})).settings.ADDITIONAL_LANGUAGES).toBe("fr,de");
    // A language no post uses goes; so does a used one that stays a site language as the primary.
    expect((await engine.settings.update({ ADDITIONAL_LANGUAGES: "fr" })).settings.ADDITIONAL_LANGUAGES).toBe(
      "fr",
    );
    const moved = await engine.settings.update({ SITE_LANGUAGE: "fr", ADDITIONAL_LANGUAGES: "en" });
    expect(moved.settings).toMatchObject({ SITE_LANGUAGE: "fr", ADDITIONAL_LANGUAGES: "en" });
    // Now the primary: changing it away from a used language is the same 409.
    expect(
      (await errorOf(engine.settings.update({ SITE_LANGUAGE: "de", ADDITIONAL_LANGUAGES: "en" }))).code,
    ).toBe("LANGUAGE_IN_USE");
  });
});

describe("settings.import", () => {
  it("writes only the language keys and lists the rest in rejectedKeys", async () => {
    const { engine } = await openTestEngine();
    const answer = await engine.settings.import({
      SITE_NAME: "Other site",
      ADDITIONAL_LANGUAGES: "fr, es",
      MULTILINGUAL_ENABLED: "true",
      SITE_LANGUAGE: "de",
      NOPE: "x",
    });
    expect(answer.rejectedKeys).toEqual(["SITE_NAME", "SITE_LANGUAGE", "NOPE"]);
    expect(answer.settings).toMatchObject({
      SITE_NAME: "Quire",
      SITE_LANGUAGE: "en",
      ADDITIONAL_LANGUAGES: "fr,es",
      MULTILINGUAL_ENABLED: "true",
    });
    expect([...(await readStoredSettings(engine.context.db)).keys()].sort()).toEqual([
      "ADDITIONAL_LANGUAGES",
      "MULTILINGUAL_ENABLED",
    ]);
  });

  it("checks values like PUT, and answers 200 with nothing to import", async () => {
    const { engine } = await openTestEngine();
    expect((await errorOf(engine.settings.import({ ADDITIONAL_LANGUAGES: "en" }))).code).toBe(
      "VALIDATION_ERROR",
    );
    expect((await errorOf(engine.settings.import({ MULTILINGUAL_ENABLED: "true" }))).code).toBe(
      "VALIDATION_ERROR",
    );
    expect((await errorOf(engine.settings.import({ ADDITIONAL_LANGUAGES: "fr_FR" }))).code).toBe(
      "VALIDATION_ERROR",
    );
    const answer = await engine.settings.import({ SITE_NAME: "x" });
    expect(answer.rejectedKeys).toEqual(["SITE_NAME"]);
    expect(answer.settings.SITE_NAME).toBe("Quire");
    expect(await readStoredSettings(engine.context.db)).toEqual(new Map());
  });
});

describe("settings.delete", () => {
  it("404 for an unknown key, 400 with rejectedKeys for an environment-only key", async () => {
    const { engine } = await openTestEngine();
    expect(await codeOf(engine.settings.delete({ key: "NOPE" }))).toBe("NOT_FOUND");
    const error = await errorOf(engine.settings.delete({ key: "SITE_PATH_PREFIX" }));
    expect(error).toMatchObject({
      code: "VALIDATION_ERROR",
      details: { rejectedKeys: ["SITE_PATH_PREFIX"] },
    });
  });
});

describe("settings in effect", () => {
  it("the time zone changes the year filter at once", async () => {
    const { engine } = await openTestEngine();
    const eve = Date.UTC(2024, 0, 1, 3) / 1000; // 22:00 on 31 Dec 2023 in New York
    const post = await engine.posts.create({
      format: "note",
      title: "Eve",
      publishedAt: eve,
      createdAt: eve,
    });
    const ids = async (year: number) => (await engine.threads.list({ year })).threads.map((t) => t.root.id);
    expect(await ids(2024)).toEqual([post.id]);
    await engine.settings.update({ TIME_ZONE: "America/New_York" });
    expect(await ids(2023)).toEqual([post.id]);
    expect(await ids(2024)).toEqual([]);
    await engine.settings.delete({ key: "TIME_ZONE" });
    expect(await ids(2024)).toEqual([post.id]);
  });

  it("another engine on the database sees a write on its next read (the site version moved)", async () => {
    const { engine, reopen, cleanup } = await createTestEngine();
    const db = await reopen();
    const other = createEngine({ db });
    try {
      expect((await other.siteSettings()).siteName).toBe("Quire");
      await engine.settings.update({ SITE_NAME: "Changed" });
      expect((await engine.siteSettings()).siteName).toBe("Changed");
      expect((await other.siteSettings()).siteName).toBe("Changed");
      await engine.settings.delete({ key: "SITE_NAME" });
      expect((await other.siteSettings()).siteName).toBe("Quire");
      await engine.settings.import({ ADDITIONAL_LANGUAGES: "fr", MULTILINGUAL_ENABLED: "true" });
      expect((await other.siteSettings()).additionalLanguages).toEqual(["fr"]);
    } finally {
      await db.destroy();
      await cleanup();
    }
  });

  it("reads the settings table again only when the settings version moved, not after a post write", async () => {
    const { engine, reopen, cleanup } = await createTestEngine();
    const base = await reopen();
    let settingsReads = 0;
    const counter: KyselyPlugin = {
      transformQuery: (args) => {
        if (args.node.kind === "SelectQueryNode") {
          const from = JSON.stringify(args.node.from ?? {});
          if (from.includes('"settings"')) settingsReads += 1;
        }
        return args.node;
      },
      transformResult: async (args) => args.result,
    };
    const db = base.withPlugin(counter);
    const other = createEngine({ db });
    try {
      await other.siteSettings();
      const first = settingsReads;
      expect(first).toBe(1);
      for (let i = 0; i < 5; i++) await other.siteSettings();
      expect(settingsReads).toBe(first);
      // A write to other content moves the site version, not the settings version: no read.
      const before = await other.siteState();
      await engine.posts.create({ format: "note", bodyMarkdown: "Hello" });
      const after = await other.siteState();
      expect(after.version).not.toBe(before.version);
      await other.siteSettings();
      expect(settingsReads).toBe(first);
      // A settings write by another engine: one read, on the next call.
      await engine.settings.update({ SITE_NAME: "Moved" });
      expect((await other.siteSettings()).siteName).toBe("Moved");
      await other.siteSettings();
      expect(settingsReads).toBe(first + 1);
    } finally {
      await base.destroy();
      await cleanup();
    }
  });

  it("a stored value that no longer validates falls back, and the engine keeps working", async () => {
    const { engine, reopen, cleanup } = await createTestEngine({ settings: { timeZone: "Europe/Paris" } });
    try {
      await engine.context.db
        .insertInto("settings")
        .values([
          { key: "TIME_ZONE", value: "Mars/Olympus", updated_at: 0 },
          { key: "SITE_PATH_PREFIX", value: "/hand-edited", updated_at: 0 },
        ])
        .execute();
      const answer = await engine.settings.get({});
      expect(answer.settings.TIME_ZONE).toBe("Europe/Paris");
      expect(answer.sources.TIME_ZONE).toBe("environment");
      expect(answer.settings.SITE_PATH_PREFIX).toBe("");
      expect((await engine.settings.update({ TIME_ZONE: "Asia/Tokyo" })).settings.TIME_ZONE).toBe(
        "Asia/Tokyo",
      );
      void reopen;
    } finally {
      await cleanup();
    }
  });
});

describe("the cached copy", () => {
  // PostgreSQL only: on SQLite, connections to one file in one process take turns, so the held
  // read would hold the write back too.
  it.skipIf(testDatabaseKind() !== "postgres")(
    "a read that began before the engine's own write does not put the old values back",
    async () => {
      const { engine, reopen, cleanup } = await createTestEngine();
      const db = await reopen();
      // The store's reads go through a second handle whose first settings read is held back until
      // released, so the write below commits (through the engine's handle) while that read is in flight.
      let release: () => void = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let settingsReads = 0;
      const gate: KyselyPlugin = {
        transformQuery: (args) => args.node,
        transformResult: async (args) => {
          const rows = args.result.rows as { key?: unknown }[];
          if (rows.length === 0 || rows.every((row) => typeof row.key === "string")) {
            settingsReads += 1;
            if (settingsReads === 1) await held;
          }
          return args.result;
        },
      };
      const clock = fixedClock(1_700_000_000);
      const store = new SettingsStore({
        db: db.withPlugin(gate),
        logger: silent,
        fallbacks: {},
        siteVersion: new SiteVersionReader(db),
      });
      try {
        const stale = store.current();
        await new Promise((resolve) => setTimeout(resolve, 50));
        const written = await writeSettings(
          { db: engine.context.db, clock, settingsStore: store },
          new Map([["SITE_NAME", "New"]]),
        );
        expect(written.settings.siteName).toBe("New");
        release();
        expect((await stale).siteName).toBe("Quire");
        // The copy is the write's, not the late read's.
        expect((await store.current()).siteName).toBe("New");
      } finally {
        release();
        await db.destroy();
        await cleanup();
      }
    },
  );
});

describe("concurrent settings writers", () => {
  it("never leave a state that breaks the language rules", async () => {
    const { engine, reopen, cleanup } = await createTestEngine({ poolSize: 8 });
    const db = await reopen();
    const other = createEngine({ db });
    try {
      for (let round = 0; round < 8; round++) {
        await engine.settings.update({ ADDITIONAL_LANGUAGES: "fr", MULTILINGUAL_ENABLED: "false" });
        const results = await Promise.allSettled([
          engine.settings.update({ MULTILINGUAL_ENABLED: "true" }),
          other.settings.update({ ADDITIONAL_LANGUAGES: "" }),
        ]);
        // One of the two may lose (400), never both win.
        expect(results.filter((result) => result.status === "fulfilled").length).toBeGreaterThanOrEqual(1);
        for (const result of results) {
          if (result.status === "rejected")
            expect(isEngineError(result.reason) && result.reason.code).toBe("VALIDATION_ERROR");
        }
        const stored = resolveKeys(await readStoredSettings(engine.context.db), {}).settings;
        expect(stored.multilingualEnabled && stored.additionalLanguages.length === 0, `round ${round}`).toBe(
          false,
        );
      }
    } finally {
      await db.destroy();
      await cleanup();
    }
  });
});
