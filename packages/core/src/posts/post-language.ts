import * as z from "zod";
import type { SiteSettings } from "../deps.js";

/**
 * A tag in canonical BCP 47 form (`Intl.getCanonicalLocales`: `EN-us` → `en-US`), or undefined
 * when it is not a well-formed language tag.
 */
export function canonicalLanguage(tag: string): string | undefined {
  // Private-use and grandfathered forms (`x-…`, `i-…`) name no language a reader could ask for.
  if (tag.length === 0 || tag.length > 35 || !/^[A-Za-z]{2,8}(?:-[A-Za-z0-9]{1,8})*$/.test(tag)) {
    return undefined;
  }
  try {
    return Intl.getCanonicalLocales(tag)[0];
  } catch {
    return undefined;
  }
}

/**
 * A BCP 47 language tag such as `en` or `zh-CN`, read in its canonical form, so `lang=EN-us` and a
 * post stored as `en-US` match. A malformed tag is a 400 naming the field.
 */
export const languageTag = z
  .string()
  .max(35)
  .refine((value) => canonicalLanguage(value) !== undefined, {
    message: "Expected a BCP 47 language tag such as en or zh-CN",
  })
  .transform((value) => canonicalLanguage(value) as string);

/** The site's languages: the primary one first, then the additional ones in their order. */
export function siteLanguages(settings: SiteSettings): string[] {
  return [settings.siteLanguage, ...settings.additionalLanguages.filter((l) => l !== settings.siteLanguage)];
}

/** Below this score (tinyld's `accuracy`, 0 to 1) a detection is not trusted. */
export const minDetectionAccuracy = 0.05;

/**
 * The language of an untagged Thread root on a multilingual site: detected from its text by
 * `tinyld`, restricted to the site's languages (by primary subtag: `pt-BR` is chosen for detected
 * Portuguese), and the site's primary language when the text is too short or too ambiguous to
 * tell. A site that is not multilingual leaves untagged posts without a language (null).
 * @see docs/languages.md § Detection
 */
export async function defaultLanguage(settings: SiteSettings, text: string): Promise<string | null> {
  if (!settings.multilingualEnabled) return null;
  return (await detectLanguage(siteLanguages(settings), text)) ?? settings.siteLanguage;
}

/**
 * The one of `languages` the text is written in, or undefined when the detector is not confident.
 * Two configured tags with one primary subtag (`zh-CN`, `zh-TW`) cannot be told apart: the first
 * listed wins.
 */
export async function detectLanguage(languages: string[], text: string): Promise<string | undefined> {
  const byPrimary = new Map<string, string>();
  for (const tag of languages) {
    const primary = tag.split("-")[0]?.toLowerCase() ?? tag;
    if (!byPrimary.has(primary)) byPrimary.set(primary, tag);
  }
  const sample = text.trim().slice(0, 2000);
  if (sample.length === 0) return undefined;
  if (byPrimary.size === 1) return undefined;
  // Loaded on first use: sites that are not multilingual never load the detector's tables.
  const { detectAll } = await import("tinyld");
  const [best] = detectAll(sample, { only: [...byPrimary.keys()] });
  if (!best || best.accuracy < minDetectionAccuracy) return undefined;
  return byPrimary.get(best.lang);
}
