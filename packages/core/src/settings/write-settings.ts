import { type Kysely, sql } from "kysely";
import type { Database } from "../db/schema.js";
import type { EngineContext, SiteSettings } from "../deps.js";
import { EngineError } from "../errors.js";
import { type SettingKey, SettingValueError, settingDefinition } from "./setting-keys.js";
import {
  type ResolvedSettings,
  readStoredSettings,
  resolveKeys,
  settingsLockKey,
  settleLanguages,
} from "./settings-store.js";

/** The keys whose values are checked against each other. */
const languageKeys: readonly string[] = ["SITE_LANGUAGE", "ADDITIONAL_LANGUAGES", "MULTILINGUAL_ENABLED"];

/**
 * Partitions the keys of a PUT: each known, editable key (among `allowed`, when given) with its
 * value checked and canonicalised; every other key to `rejectedKeys`. A value that fails its key's
 * validation is a 400 naming the key, before anything is written.
 */
export function acceptChanges(
  input: Record<string, string>,
  allowed?: readonly string[],
): { changes: Map<SettingKey, string>; rejectedKeys: string[] } {
  const changes = new Map<SettingKey, string>();
  const rejectedKeys: string[] = [];
  const fieldErrors: Record<string, string[]> = {};
  for (const [key, text] of Object.entries(input)) {
    if (text === undefined) continue; // an optional key an in-process caller spelled out as undefined
    const definition = settingDefinition(key);
    if (!definition?.editable || (allowed && !allowed.includes(key))) {
      rejectedKeys.push(key);
      continue;
    }
    try {
      changes.set(key as SettingKey, definition.format(definition.parse(text) as never));
    } catch (err) {
      if (!(err instanceof SettingValueError)) throw err;
      fieldErrors[key] = [err.message];
    }
  }
  const invalid = Object.keys(fieldErrors);
  if (invalid.length > 0) {
    throw settingsError(
      `Invalid setting: ${invalid.map((key) => `${key}: ${fieldErrors[key]?.[0]}`).join("; ")}`,
      fieldErrors,
      rejectedKeys,
    );
  }
  return { changes, rejectedKeys };
}

/** A 400 in zod's flattened shape, with the `rejectedKeys` (possibly none). */
export function settingsError(
  message: string,
  fieldErrors: Record<string, string[]>,
  rejectedKeys: string[],
  formErrors: string[] = [],
): EngineError {
  // `rejectedKeys` always, possibly empty: the one documented part of `details` (spec § Errors).
  return new EngineError("VALIDATION_ERROR", message, { formErrors, fieldErrors, rejectedKeys });
}

/**
 * Writes overrides (`null` removes one) in one transaction, serialised with every other settings
 * write, and answers the settings in effect after it. The rules between the language keys are
 * checked against the values in effect after the write, and a language that is removed while
 * posts are still written in it is refused (409 LANGUAGE_IN_USE); either way nothing is written.
 * The engine's cached copy is replaced once the transaction commits.
 */
export async function writeSettings(
  ctx: Pick<EngineContext, "db" | "clock" | "settingsStore">,
  changes: ReadonlyMap<SettingKey, string | null>,
): Promise<ResolvedSettings> {
  const store = ctx.settingsStore;
  const now = ctx.clock.now();
  const resolved = await ctx.db.transaction().execute(async (trx) => {
    await lockSettings(trx, now);
    const stored = await readStoredSettings(trx);
    const before = settleLanguages(resolveKeys(stored, store.fallbacks).settings);
    const next = new Map(stored);
    for (const [key, value] of changes) {
      if (value === null) next.delete(key);
      else next.set(key, value);
    }
    const touchesLanguages = [...changes.keys()].some((key) => languageKeys.includes(key));
    if (touchesLanguages) {
      checkLanguageRules(resolveKeys(next, store.fallbacks).settings, changes);
      await checkRemovedLanguages(trx, before, settleLanguages(resolveKeys(next, store.fallbacks).settings));
    }
    for (const [key, value] of changes) {
      if (value === null) {
        await trx.deleteFrom("settings").where("key", "=", key).execute();
      } else {
        await trx
          .insertInto("settings")
          .values({ key, value, updated_at: now })
          .onConflict((oc) => oc.column("key").doUpdateSet({ value, updated_at: now }))
          .execute();
      }
    }
    return store.resolve(next);
  });
  store.replace(resolved);
  return resolved;
}

/**
 * Takes the settings write lock for the rest of the transaction: an upsert of the lock row, which
 * PostgreSQL holds row-locked until commit, so a second writer waits here and then reads what the
 * first committed. On SQLite the transaction already holds the file's one write lock.
 */
async function lockSettings(trx: Kysely<Database>, now: number): Promise<void> {
  await trx
    .insertInto("settings")
    .values({ key: settingsLockKey, value: "", updated_at: now })
    .onConflict((oc) => oc.column("key").doUpdateSet({ updated_at: now }))
    .execute();
}

/** The field a rule between keys is reported on: the first of `keys` the write changes. */
function fieldOf(changes: ReadonlyMap<SettingKey, string | null>, keys: SettingKey[]): SettingKey {
  return keys.find((key) => changes.has(key)) ?? (keys[0] as SettingKey);
}

function checkLanguageRules(after: SiteSettings, changes: ReadonlyMap<SettingKey, string | null>): void {
  if (after.additionalLanguages.includes(after.siteLanguage)) {
    const field = fieldOf(changes, ["ADDITIONAL_LANGUAGES", "SITE_LANGUAGE"]);
    const message = `${after.siteLanguage} is the site's primary language (SITE_LANGUAGE) and cannot also be an additional language`;
    throw settingsError(`Invalid setting: ${field}: ${message}`, { [field]: [message] }, []);
  }
  if (after.multilingualEnabled && after.additionalLanguages.length === 0) {
    const field = fieldOf(changes, ["MULTILINGUAL_ENABLED", "ADDITIONAL_LANGUAGES", "SITE_LANGUAGE"]);
    const message = "A multilingual site needs at least one language in ADDITIONAL_LANGUAGES";
    throw settingsError(`Invalid setting: ${field}: ${message}`, { [field]: [message] }, []);
  }
}

/**
 * Refuses to drop a language (the primary or an additional one) that posts are still written in.
 * Post language tags are compared without regard to case, as BCP 47 tags are.
 */
async function checkRemovedLanguages(trx: Kysely<Database>, before: SiteSettings, after: SiteSettings) {
  const kept = new Set([after.siteLanguage, ...after.additionalLanguages].map((tag) => tag.toLowerCase()));
  const removed = [before.siteLanguage, ...before.additionalLanguages]
    .map((tag) => tag.toLowerCase())
    .filter((tag) => !kept.has(tag));
  if (removed.length === 0) return;
  const used = await trx
    .selectFrom("posts")
    .select(sql<string>`lower(language)`.as("language"))
    .where(sql<string>`lower(language)`, "in", removed)
    .limit(1)
    .executeTakeFirst();
  if (!used) return;
  const language = [before.siteLanguage, ...before.additionalLanguages].find(
    (tag) => tag.toLowerCase() === used.language,
  );
  throw new EngineError(
    "LANGUAGE_IN_USE",
    `Posts are still written in ${language ?? used.language}; change their language before removing it`,
    { language: language ?? used.language },
  );
}
