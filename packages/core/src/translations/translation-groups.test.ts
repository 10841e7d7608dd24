import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { codeOf, openTestEngine } from "../../test/support.js";
import type { Engine } from "../engine.js";
import { canonicalLanguage, detectLanguage } from "../posts/post-language.js";
import { linkTranslations } from "../posts/translation-group.js";

const settings = { siteLanguage: "en", additionalLanguages: ["fr", "de"], multilingualEnabled: true };

async function roots(engine: Engine, languages: string[]) {
  const posts = [];
  for (const [i, language] of languages.entries()) {
    posts.push(await engine.posts.create({ format: "note", title: `Post ${i}`, language }));
  }
  return posts;
}

async function groupOf(engine: Engine, id: string) {
  const row = await engine.context.db
    .selectFrom("posts")
    .select("translation_group_id")
    .where("id", "=", id)
    .executeTakeFirstOrThrow();
  return row.translation_group_id;
}

describe("translation groups in the database", () => {
  it("refuse a second post of one language in a group, whatever writes it", async () => {
    const { engine } = await openTestEngine({ settings });
    const [en, fr, de, de2] = await roots(engine, ["en", "fr", "de", "de"]);
    await engine.translations.link({ id: en!.id, postId: fr!.id });
    await engine.translations.link({ id: en!.id, postId: de!.id });
    const group = await groupOf(engine, en!.id);
    const write = engine.context.db
      .updateTable("posts")
      .set({ translation_group_id: group })
      .where("id", "=", de2!.id)
      .execute();
    await expect(write).rejects.toSatisfy((err) => engine.context.dialect.isUniqueViolation(err));
  });

  it("refuse the later of two concurrent links bringing one language into a group", async () => {
    const { engine } = await openTestEngine({ settings, poolSize: 4 });
    const [en, fr, deA, deB] = await roots(engine, ["en", "fr", "de", "de"]);
    await engine.translations.link({ id: en!.id, postId: fr!.id });
    let linked!: () => void;
    const firstLinked = new Promise<void>((resolve) => {
      linked = resolve;
    });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The first link has written deA into the group and holds its transaction open.
    const first = engine.context.db.transaction().execute(async (trx) => {
      await linkTranslations(
        { ...engine.context, db: trx },
        { id: en!.id, postId: deA!.id, fields: { id: "id", postId: "postId" } },
      );
      linked();
      await gate;
    });
    await firstLinked;
    const second = codeOf(engine.translations.link({ id: fr!.id, postId: deB!.id }));
    if (engine.context.dialect.name === "postgres") {
      // The second has read the group without deA (not committed yet), found German free, and now
      // waits on the unique index for the first's row: only the index can refuse it.
      await waitForLockWait(engine);
    } else {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    release();
    await first;
    expect(await second).toBe("CONFLICT");
    expect(await groupOf(engine, deA!.id)).toBe(await groupOf(engine, en!.id));
    expect(await groupOf(engine, deB!.id)).toBeNull();
    const versions = await engine.translations.list({ id: en!.id });
    expect(versions.translations.map((v) => v.language)).toEqual(["de", "fr"]);
  });
});

async function waitForLockWait(engine: Engine): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const waiting = await sql<{ pid: number }>`
      select pid from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid()`.execute(
      engine.context.db,
    );
    if (waiting.rows.length > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error("the second link never waited on a lock");
}

describe("language tags and detection", () => {
  it("canonicalises well-formed tags and refuses others", () => {
    expect(canonicalLanguage("EN-us")).toBe("en-US");
    expect(canonicalLanguage("zh-hant-tw")).toBe("zh-Hant-TW");
    expect(canonicalLanguage("de")).toBe("de");
    for (const bad of ["", "e", "en_US", "x-klingon", "en-", "123", "a".repeat(40)]) {
      expect(canonicalLanguage(bad), bad).toBeUndefined();
    }
  });

  it("detects only among the given languages, mapping a primary subtag to the configured tag", async () => {
    const french = "Nous sommes partis tôt le matin pour visiter la vieille ville et ses églises.";
    expect(await detectLanguage(["en", "fr-CA"], french)).toBe("fr-CA");
    expect(await detectLanguage(["en", "de"], "Das Wetter ist heute schön und wir gehen spazieren.")).toBe(
      "de",
    );
    // French is not configured: never answered.
    expect(await detectLanguage(["en", "de"], french)).not.toBe("fr");
    expect(await detectLanguage(["en", "fr"], "")).toBeUndefined();
    expect(await detectLanguage(["en", "fr"], "ok")).toBeUndefined();
  });
});
