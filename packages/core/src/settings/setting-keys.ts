import type { SiteSettings } from "../deps.js";

/**
 * Every key of the settings store, with its text form, its validation and its default. A value is
 * always text on the wire and in the `settings` table; `parse` turns it into the typed field of
 * {@link SiteSettings} (or throws {@link SettingValueError}), `format` turns the field back into
 * its canonical text. @see docs/settings.md
 */

/** A value that fails its key's validation; the message says what the key accepts. */
export class SettingValueError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SettingValueError";
  }
}

/** One key of the store. */
export interface SettingDefinition<Field extends keyof SiteSettings = keyof SiteSettings> {
  key: string;
  /** The field of {@link SiteSettings} it sets. */
  field: Field;
  /** False: only the environment (the engine's fallbacks) sets it; a PUT lists it in `rejectedKeys`. */
  editable: boolean;
  /** The built-in default, used when neither the store nor the environment has a value. */
  defaultValue: SiteSettings[Field];
  /** The typed value of a text, canonicalised; throws {@link SettingValueError} when invalid. */
  parse(text: string): SiteSettings[Field];
  /** The canonical text of a value. */
  format(value: SiteSettings[Field]): string;
}

function define<const Key extends string, Field extends keyof SiteSettings>(
  definition: SettingDefinition<Field> & { key: Key },
): SettingDefinition<Field> & { key: Key } {
  return definition;
}

const switchValue = {
  parse: (text: string): boolean => {
    if (text === "true") return true;
    if (text === "false") return false;
    throw new SettingValueError('Expected exactly "true" or "false"');
  },
  format: (value: boolean) => (value ? "true" : "false"),
};

function integerValue(min: number, max: number) {
  return {
    parse: (text: string): number => {
      const number = /^\d+$/.test(text) ? Number(text) : Number.NaN;
      if (!Number.isSafeInteger(number) || number < min || number > max) {
        throw new SettingValueError(`Expected a base-10 integer from ${min} to ${max}`);
      }
      return number;
    },
    format: (value: number) => String(value),
  };
}

function choiceValue<const Choice extends string>(choices: readonly Choice[]) {
  return {
    parse: (text: string): Choice => {
      if (!(choices as readonly string[]).includes(text)) {
        throw new SettingValueError(`Expected one of ${choices.join(", ")}`);
      }
      return text as Choice;
    },
    format: (value: Choice) => value,
  };
}

/** Control characters other than tab, line feed and carriage return. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to find them
const controlCharacter = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/** Free text, trimmed, of at most `max` characters; `singleLine` also refuses line breaks. */
function textValue(options: { min: number; max: number; singleLine: boolean }) {
  return {
    parse: (text: string): string => {
      const value = text.trim();
      if (controlCharacter.test(value)) throw new SettingValueError("Control characters are not allowed");
      if (options.singleLine && /[\r\n\t]/.test(value)) {
        throw new SettingValueError("Expected a single line of text");
      }
      const length = [...value].length;
      if (length < options.min) throw new SettingValueError("Expected some text");
      if (length > options.max) throw new SettingValueError(`Expected at most ${options.max} characters`);
      return value;
    },
    format: (value: string) => value,
  };
}

/**
 * A BCP 47 language tag written with hyphens (`en`, `zh-CN`, `zh-Hant-TW`), in canonical form.
 * `Intl.getCanonicalLocales` is ECMA-402's canonicalisation (CanonicalizeUnicodeLocaleId: case,
 * order of subtags, deprecated aliases); it throws a RangeError for a tag that is not well formed.
 * It also accepts Unicode extensions (`en-u-ca-buddhist`) and `_` separators, which are not
 * language tags for a site, so the shape is checked first.
 * @see https://tc39.es/ecma402/#sec-intl.getcanonicallocales
 */
export function canonicalLanguageTag(text: string): string {
  const fail = () => new SettingValueError(`Expected a BCP 47 language tag with hyphens such as en or zh-CN`);
  if (!/^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$/.test(text)) throw fail();
  try {
    const [canonical] = Intl.getCanonicalLocales(text);
    if (canonical === undefined) throw fail();
    return canonical;
  } catch {
    throw fail();
  }
}

/** Most additional languages a site may have. */
export const maxAdditionalLanguages = 20;

/** A comma list of language tags: canonical, without duplicates; "" is none. */
function languageListValue() {
  return {
    parse: (text: string): string[] => {
      if (text.trim() === "") return [];
      const tags: string[] = [];
      for (const item of text.split(",")) {
        const tag = canonicalLanguageTag(item.trim());
        if (tags.includes(tag)) throw new SettingValueError(`${tag} is listed twice`);
        tags.push(tag);
      }
      if (tags.length > maxAdditionalLanguages) {
        throw new SettingValueError(`Expected at most ${maxAdditionalLanguages} languages`);
      }
      return tags;
    },
    format: (value: string[]) => value.join(","),
  };
}

/**
 * An IANA time zone name this runtime knows (`UTC`, `Europe/Paris`), with its case fixed.
 * `new Intl.DateTimeFormat(undefined, { timeZone }).resolvedOptions().timeZone` is the standard
 * test and canonicalisation (ECMA-402 § CreateDateTimeFormat: an unknown name throws a
 * RangeError; the resolved name is the case-normalised identifier). Node 20's ICU also replaces
 * links with its own primary names (`Asia/Kolkata` → `Asia/Calcutta`, `US/Eastern` →
 * `America/New_York`), which later ECMA-402 editions stopped doing (the Time Zone
 * Canonicalization proposal), so a name that differs from the resolved one by more than case is
 * kept as given. Offsets such as `+01:00` are accepted by Intl but are not time zone names.
 * @see https://tc39.es/ecma402/#sec-createdatetimeformat
 * @see https://github.com/tc39/proposal-canonical-tz
 */
export function canonicalTimeZone(text: string): string {
  const fail = () => new SettingValueError("Expected an IANA time zone name such as UTC or Europe/Paris");
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/.test(text)) throw fail();
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat(undefined, { timeZone: text }).resolvedOptions().timeZone;
  } catch {
    throw fail();
  }
  return resolved.toLowerCase() === text.toLowerCase() ? resolved : text;
}

/**
 * A site path prefix as the deployment gives it (only the environment sets it), normalised as the
 * HTTP handler reads it: a leading `/` added, trailing ones removed (`blog/` → `/blog`, `/` → "").
 */
const pathPrefixValue = {
  parse: (text: string): string => {
    const trimmed = text.trim().replace(/\/+$/, "");
    const value = trimmed === "" || trimmed.startsWith("/") ? trimmed : `/${trimmed}`;
    const segments = value.split("/").slice(1);
    if (
      value !== "" &&
      !segments.every((segment) => /^[A-Za-z0-9._~-]+$/.test(segment) && !/^\.\.?$/.test(segment))
    ) {
      throw new SettingValueError("Expected empty or a path like /blog");
    }
    return value;
  },
  format: (value: string) => value,
};

/** Every key, in the order GET lists them. */
export const settingDefinitions = [
  define({
    key: "SITE_NAME",
    field: "siteName",
    editable: true,
    defaultValue: "Quire",
    ...textValue({ min: 1, max: 120, singleLine: true }),
  }),
  define({
    key: "SITE_DESCRIPTION",
    field: "siteDescription",
    editable: true,
    defaultValue: "",
    ...textValue({ min: 0, max: 500, singleLine: false }),
  }),
  define({
    key: "SITE_LANGUAGE",
    field: "siteLanguage",
    editable: true,
    defaultValue: "en",
    parse: canonicalLanguageTag,
    format: (value: string) => value,
  }),
  define({
    key: "ADDITIONAL_LANGUAGES",
    field: "additionalLanguages",
    editable: true,
    defaultValue: [],
    ...languageListValue(),
  }),
  define({
    key: "MULTILINGUAL_ENABLED",
    field: "multilingualEnabled",
    editable: true,
    defaultValue: false,
    ...switchValue,
  }),
  define({
    key: "TIME_ZONE",
    field: "timeZone",
    editable: true,
    defaultValue: "UTC",
    parse: canonicalTimeZone,
    format: (value: string) => value,
  }),
  define({ key: "PAGE_SIZE", field: "pageSize", editable: true, defaultValue: 25, ...integerValue(1, 100) }),
  define({
    key: "ARCHIVE_DEFAULT_LAYOUT",
    field: "archiveDefaultLayout",
    editable: true,
    defaultValue: "list",
    ...choiceValue(["list", "grid"] as const),
  }),
  define({
    key: "MAIN_RSS_FEED",
    field: "mainRssFeed",
    editable: true,
    defaultValue: "latest",
    ...choiceValue(["latest", "featured"] as const),
  }),
  define({
    key: "RSS_FEEDS_ENABLED",
    field: "rssFeedsEnabled",
    editable: true,
    defaultValue: true,
    ...switchValue,
  }),
  define({
    key: "RSS_FEED_LIMIT",
    field: "rssFeedLimit",
    editable: true,
    defaultValue: 20,
    ...integerValue(1, 200),
  }),
  define({
    key: "RSS_PUBLISH_DELAY_SECONDS",
    field: "rssPublishDelaySeconds",
    editable: true,
    defaultValue: 0,
    ...integerValue(0, 86_400),
  }),
  define({ key: "NOINDEX", field: "noindex", editable: true, defaultValue: false, ...switchValue }),
  define({
    key: "DISCOVER",
    field: "discover",
    editable: true,
    defaultValue: "off",
    ...choiceValue(["latest", "off"] as const),
  }),
  define({
    key: "PUBLIC_API_ENABLED",
    field: "publicApiEnabled",
    editable: true,
    defaultValue: true,
    ...switchValue,
  }),
  define({
    key: "SITE_FOOTER",
    field: "siteFooter",
    editable: true,
    defaultValue: "",
    ...textValue({ min: 0, max: 2000, singleLine: false }),
  }),
  define({
    key: "SITE_PATH_PREFIX",
    field: "sitePathPrefix",
    editable: false,
    defaultValue: "",
    ...pathPrefixValue,
  }),
] as const satisfies readonly SettingDefinition[];

/** A key of the settings store, such as `SITE_NAME`. */
export type SettingKey = (typeof settingDefinitions)[number]["key"];

/** The keys of the store, in order. */
export const settingKeys: readonly SettingKey[] = settingDefinitions.map((definition) => definition.key);

const byKey = new Map<string, SettingDefinition>(
  settingDefinitions.map((definition) => [definition.key, definition as unknown as SettingDefinition]),
);

/** The definition of a key, or undefined for a key the store does not have. */
export function settingDefinition(key: string): SettingDefinition | undefined {
  return byKey.get(key);
}

/** The language keys, the only ones `PUT /api/settings/import` writes. */
export const importableKeys: readonly SettingKey[] = ["ADDITIONAL_LANGUAGES", "MULTILINGUAL_ENABLED"];

/**
 * A key's text checked and canonicalised as the store would keep it: the canonical text, or an
 * error message. The reference server checks its environment variables with it at startup.
 */
export function checkSettingValue(
  key: string,
  text: string,
): { ok: true; value: string } | { ok: false; message: string } {
  const definition = settingDefinition(key);
  if (!definition) return { ok: false, message: "is not a setting" };
  try {
    return { ok: true, value: definition.format(definition.parse(text) as never) };
  } catch (err) {
    if (err instanceof SettingValueError) return { ok: false, message: err.message };
    throw err;
  }
}

/** A problem with one key's text in {@link settingsFromText}; `key` names it. */
export class SettingTextError extends Error {
  constructor(
    readonly key: string,
    message: string,
  ) {
    super(`${key}: ${message}`);
    this.name = "SettingTextError";
  }
}

/**
 * The settings fallbacks for `createEngine({ settings })` from text by key, as environment
 * variables hold them (`{ SITE_NAME: "…", TIME_ZONE: "…" }`): each key present is checked and
 * canonicalised as the store checks it, and the language keys are checked against each other
 * (the primary is not an additional language; `MULTILINGUAL_ENABLED=true` needs another
 * language). Keys that are not settings, and undefined or empty values, are skipped. Throws a
 * {@link SettingTextError} naming the first key in error.
 */
export function settingsFromText(values: Record<string, string | undefined>): Partial<SiteSettings> {
  const settings: Record<string, unknown> = {};
  for (const definition of settingDefinitions as readonly SettingDefinition[]) {
    const text = values[definition.key];
    if (text === undefined || text === "") continue;
    try {
      settings[definition.field] = definition.parse(text);
    } catch (err) {
      if (err instanceof SettingValueError) throw new SettingTextError(definition.key, err.message);
      throw err;
    }
  }
  const result = settings as Partial<SiteSettings>;
  const primary = result.siteLanguage ?? "en";
  if (result.additionalLanguages?.includes(primary)) {
    throw new SettingTextError(
      "ADDITIONAL_LANGUAGES",
      `must not include the primary language ${primary} (SITE_LANGUAGE)`,
    );
  }
  if (result.multilingualEnabled && (result.additionalLanguages ?? []).length === 0) {
    throw new SettingTextError(
      "MULTILINGUAL_ENABLED",
      "cannot be true without a language in ADDITIONAL_LANGUAGES",
    );
  }
  return result;
}
