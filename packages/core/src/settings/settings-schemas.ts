import * as z from "zod";
import { importableKeys, type SettingKey, settingDefinitions } from "./setting-keys.js";

/** Most keys one PUT may carry (the store has far fewer; the rest go to `rejectedKeys`). */
export const maxKeysPerWrite = 100;

/** What each key holds, for the input schema (MCP tool arguments, an API reference). */
const keyDescriptions: Record<SettingKey, string> = {
  SITE_NAME: "The site's name: one line, 1 to 120 characters",
  SITE_DESCRIPTION: "About the site: up to 500 characters, may be empty",
  SITE_LANGUAGE: "Primary language, a BCP 47 tag such as en or zh-CN",
  ADDITIONAL_LANGUAGES: "Other languages: comma-separated BCP 47 tags, not the primary; empty for none",
  MULTILINGUAL_ENABLED: '"true" or "false"; "true" needs at least one additional language',
  TIME_ZONE: "IANA time zone name such as UTC or Europe/Paris",
  PAGE_SIZE: "Posts per site page, an integer from 1 to 100",
  ARCHIVE_DEFAULT_LAYOUT: "list or grid: the layout of smart collections whose layout is null",
  MAIN_RSS_FEED: "latest or featured: what the main feed lists",
  RSS_FEEDS_ENABLED: '"true" or "false"',
  RSS_FEED_LIMIT: "Items per feed, an integer from 1 to 200",
  RSS_PUBLISH_DELAY_SECONDS: "Seconds a new post waits before feeds list it, 0 to 86400",
  NOINDEX: '"true" asks search engines not to index the site',
  DISCOVER: "latest lists the site for discovery (GET /api/discover/posts answers); off unlists it",
  PUBLIC_API_ENABLED: '"false" closes the public API (every public route answers 404)',
  SITE_FOOTER: "Footer text of site pages: up to 2000 characters, may be empty",
  SITE_PATH_PREFIX: "Set by the environment only",
};

/**
 * An object of setting keys to text values, naming `keys` as its properties: each of their values
 * must be a string (a number or `true` is a 400 naming its key). Other keys are kept, so that the
 * operation can report them in `rejectedKeys`; their values must fit `others` (a string, unless
 * the caller takes any value).
 */
function settingsObject(keys: readonly SettingKey[], others: z.ZodType = z.string().max(10_000)) {
  const shape = Object.fromEntries(
    keys.map((key) => [key, z.string().max(10_000).optional().describe(keyDescriptions[key])]),
  );
  return z
    .object(shape)
    .catchall(others)
    .refine((value) => Object.keys(value).length <= maxKeysPerWrite, {
      message: `At most ${maxKeysPerWrite} keys per request`,
    }) as unknown as z.ZodType<Record<string, string>>;
}

/** The body of `PUT /api/settings`: setting keys to their new values, each a string. */
export const settingsInput = settingsObject(
  settingDefinitions.filter((definition) => definition.editable).map((definition) => definition.key),
);

/**
 * The body of `PUT /api/settings/import`: a settings object, of which the language keys are
 * written. Every other key is only listed in `rejectedKeys`, whatever its value (`SITE_NAME: 5`
 * was a 400).
 */
export const importSettingsInput = settingsObject(importableKeys, z.unknown());

/** `DELETE /api/settings/:key`. */
export const settingKeyInput = z.object({
  // No length limit: a key longer than any setting's is unknown like any other (404).
  key: z.string().min(1).describe("The setting's key, such as SITE_NAME"),
});
