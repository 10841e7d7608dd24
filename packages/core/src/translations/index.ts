import { linkTranslation } from "./link-translation.js";
import { listTranslationCandidates } from "./list-candidates.js";
import { listTranslations } from "./list-translations.js";
import { resolveTranslation } from "./resolve-translation.js";
import { unlinkTranslation } from "./unlink-translation.js";

/** The translation-group operations (a post's language is set by `posts.setLanguage`). */
export const translationOperations = [
  listTranslations,
  linkTranslation,
  unlinkTranslation,
  listTranslationCandidates,
  resolveTranslation,
] as const;

export type { TranslationResolution } from "./resolve-translation.js";
export type { CandidateEntry, VersionEntry } from "./translation-view.js";
