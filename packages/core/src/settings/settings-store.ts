import type { Kysely } from "kysely";
import type { Database } from "../db/schema.js";
import type { SiteVersionReader } from "../db/site-version.js";
import type { Logger, SiteSettings } from "../deps.js";
import { EngineError } from "../errors.js";
import {
  type SettingDefinition,
  type SettingKey,
  SettingValueError,
  settingDefinition,
  settingDefinitions,
} from "./setting-keys.js";

/** Where a key's value in effect comes from. */
export type SettingSource = "stored" | "environment" | "default";

/** Every key's value in effect, typed and as text, with where each comes from. */
export interface ResolvedSettings {
  settings: SiteSettings;
  /** The canonical text of every key. */
  values: Record<SettingKey, string>;
  sources: Record<SettingKey, SettingSource>;
}

/** The stored overrides, by key. */
export type StoredSettings = Map<string, string>;

/**
 * The key of the row every settings write upserts first: on PostgreSQL the row lock it takes
 * queues concurrent writers (docs/reliability.md). It is no setting, and reads skip it.
 */
export const settingsLockKey = "";

/** Every stored override (rows of unknown keys, such as the lock row, are skipped by the resolver). */
export async function readStoredSettings(db: Kysely<Database>): Promise<StoredSettings> {
  const rows = await db.selectFrom("settings").select(["key", "value"]).execute();
  return new Map(rows.filter((row) => row.key !== settingsLockKey).map((row) => [row.key, row.value]));
}

/**
 * Checks the engine's fallbacks (`createEngine({ settings })`) with each key's validation and
 * returns them canonicalised; an invalid one throws CONFIGURATION_ERROR naming its key.
 */
export function checkFallbacks(fallbacks: Partial<SiteSettings>): Partial<SiteSettings> {
  const checked: Record<string, unknown> = {};
  for (const definition of settingDefinitions as readonly SettingDefinition[]) {
    const value = fallbacks[definition.field];
    if (value === undefined) continue;
    try {
      checked[definition.field] = definition.parse(definition.format(value as never));
    } catch (err) {
      if (!(err instanceof SettingValueError) && !(err instanceof TypeError)) throw err;
      const problem = err instanceof SettingValueError ? err.message : "Expected a value of the key's type";
      throw new EngineError(
        "CONFIGURATION_ERROR",
        `The engine's fallback for ${definition.key} is invalid: ${problem} (got ${JSON.stringify(value)})`,
      );
    }
  }
  return checked as Partial<SiteSettings>;
}

/**
 * Each key on its own: the stored override, else the fallback, else the built-in default. A stored
 * value that no longer passes its key's validation (a time zone the runtime dropped, a hand-edited
 * row) is skipped, with a warning. No rule between keys is applied here: see {@link settleLanguages}.
 */
export function resolveKeys(
  stored: StoredSettings,
  fallbacks: Partial<SiteSettings>,
  logger?: Logger,
): { settings: SiteSettings; sources: Record<SettingKey, SettingSource> } {
  const settings: Record<string, unknown> = {};
  const sources: Record<string, SettingSource> = {};
  for (const definition of settingDefinitions as readonly SettingDefinition[]) {
    const text = definition.editable ? stored.get(definition.key) : undefined;
    if (text !== undefined) {
      try {
        settings[definition.field] = definition.parse(text);
        sources[definition.key] = "stored";
        continue;
      } catch (err) {
        if (!(err instanceof SettingValueError)) throw err;
        logger?.warn("stored setting is invalid; using its fallback", { key: definition.key, value: text });
      }
    }
    const fallback = fallbacks[definition.field];
    settings[definition.field] = fallback ?? structuredClone(definition.defaultValue);
    sources[definition.key] = fallback === undefined ? "default" : "environment";
  }
  return {
    settings: settings as unknown as SiteSettings,
    sources: sources as Record<SettingKey, SettingSource>,
  };
}

/**
 * The rules between the language keys, as applied to the values in effect: the primary language
 * is never an additional one, and a site without another language is not multilingual. Writes
 * refuse a state that breaks them; this only settles one the environment changed under stored
 * overrides (say `SITE_LANGUAGE` set to a language stored in `ADDITIONAL_LANGUAGES`).
 */
export function settleLanguages(settings: SiteSettings): SiteSettings {
  const additionalLanguages = settings.additionalLanguages.filter((tag) => tag !== settings.siteLanguage);
  return {
    ...settings,
    additionalLanguages,
    multilingualEnabled: settings.multilingualEnabled && additionalLanguages.length > 0,
  };
}

/** The values in effect for stored overrides and fallbacks: each key, then the rules between keys. */
export function resolveSettings(
  stored: StoredSettings,
  fallbacks: Partial<SiteSettings>,
  logger?: Logger,
): ResolvedSettings {
  const keys = resolveKeys(stored, fallbacks, logger);
  const settings = settleLanguages(keys.settings);
  const values: Record<string, string> = {};
  for (const definition of settingDefinitions as readonly SettingDefinition[]) {
    values[definition.key] = definition.format(settings[definition.field] as never);
  }
  return { settings, values: values as Record<SettingKey, string>, sources: keys.sources };
}

/** The answer of the settings operations: every key's text in effect and where it comes from. */
export function settingsView(resolved: ResolvedSettings): {
  settings: Record<SettingKey, string>;
  sources: Record<SettingKey, SettingSource>;
} {
  return { settings: { ...resolved.values }, sources: { ...resolved.sources } };
}

/** True for a key a PUT may write. */
export function isEditableKey(key: string): key is SettingKey {
  return settingDefinition(key)?.editable === true;
}

/** The settings in effect with the site version they were read at. */
export interface SiteState {
  /** The site content version (db/site-version.ts) the settings were read at or after. */
  version: string;
  resolved: ResolvedSettings;
}

/**
 * The site's settings as one engine keeps them, keyed by the settings version: each read asks the
 * site and settings versions (one read of two rows, shared by concurrent callers;
 * db/site-version.ts) and keeps the copy while the settings version has not moved. Every settings
 * write moves it in its transaction, so a write of this engine or of any other process on the same
 * database is seen on the next read, without a time to live; a post write moves only the site
 * version and leaves the copy. The engine's own writes also replace the copy when they commit.
 * Concurrent readers of a stale copy share one query.
 */
export class SettingsStore {
  private cached: { resolved: ResolvedSettings; version: string | undefined } | undefined;
  private loading: { version: string; promise: Promise<ResolvedSettings> } | undefined;

  constructor(
    private readonly deps: {
      db: Kysely<Database>;
      logger: Logger;
      fallbacks: Partial<SiteSettings>;
      siteVersion: SiteVersionReader;
    },
  ) {}

  /** The engine's fallbacks, checked and canonicalised. */
  get fallbacks(): Partial<SiteSettings> {
    return this.deps.fallbacks;
  }

  /** The settings in effect, from memory while the site version has not moved. */
  async current(): Promise<SiteSettings> {
    return (await this.state()).resolved.settings;
  }

  /** Every key in effect, from memory while the site version has not moved. */
  async resolved(): Promise<ResolvedSettings> {
    return (await this.state()).resolved;
  }

  /**
   * The site version now and the settings in effect at it. The version is read first, the store
   * only if it moved: the settings returned are never older than the version returned (a write
   * committing in between makes them newer, and moves the version the next reader sees).
   */
  async state(): Promise<SiteState> {
    const versions = await this.deps.siteVersion.read();
    const version = versions.settings;
    const cached = this.cached;
    if (cached && cached.version === version) return { version: versions.site, resolved: cached.resolved };
    if (this.loading?.version !== version) {
      const promise = this.load(version);
      const loading = { version, promise };
      this.loading = loading;
      const done = () => {
        if (this.loading === loading) this.loading = undefined;
      };
      promise.then(done, done);
    }
    return {
      version: versions.site,
      resolved: await (this.loading as { promise: Promise<ResolvedSettings> }).promise,
    };
  }

  /** Reads the store now, whatever the version, and keeps what it read. */
  async fresh(): Promise<ResolvedSettings> {
    return this.load((await this.deps.siteVersion.read()).settings);
  }

  /**
   * Keeps what a write of this engine committed, so that it takes effect at once; the next read
   * of a moved version (the write moved it) reads the store again.
   */
  replace(resolved: ResolvedSettings): void {
    this.loading = undefined;
    this.cached = { resolved, version: undefined };
  }

  /** Resolves stored overrides read from `db` with this engine's fallbacks. */
  resolve(stored: StoredSettings): ResolvedSettings {
    return resolveSettings(stored, this.deps.fallbacks, this.deps.logger);
  }

  /**
   * Reads the store and keeps the copy under `version`, read before it: the copy is never older
   * than its version, so a reader that sees the same version may use it. (A copy kept under an
   * older version than another's only costs one more read.)
   */
  private async load(version: string): Promise<ResolvedSettings> {
    const resolved = this.resolve(await readStoredSettings(this.deps.db));
    this.cached = { resolved, version };
    return resolved;
  }
}
