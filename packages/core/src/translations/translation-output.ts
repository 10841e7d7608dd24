import * as z from "zod";
import { idOf, named } from "../shared/outputs.js";

/** A version entry: one post of the translation group. @see spec § Translation entries */
export const versionEntryOutput = z.object({
  id: idOf("pst"),
  slug: z.string(),
  title: z.string().nullable(),
  label: z.string(),
  language: z.string().nullable(),
});

/** A candidate entry. */
export const candidateEntryOutput = z.object({
  id: idOf("pst"),
  slug: z.string(),
  label: z.string(),
  language: z.string().nullable(),
});

/** `translations.list`. */
export const translationsListOutput = z.object({ translations: z.array(versionEntryOutput) });
/** `translations.candidates`. */
export const candidatesOutput = z.object({ candidates: z.array(candidateEntryOutput) });

/** `translations.resolve`. @see docs/languages.md § Resolving an address */
export const translationResolutionOutput = z.object({
  resolution: z.object({
    kind: z.enum([
      "ok",
      "external",
      "not_found",
      "not_a_post",
      "same_thread",
      "unpublished",
      "no_language",
      "same_language",
      "language_taken",
      "group_conflict",
      "group_language_taken",
    ]),
    address: z.string(),
    candidate: candidateEntryOutput.nullable(),
    language: z.string().optional(),
  }),
});

// Shown once in the API reference, under these names.
named(versionEntryOutput, "VersionEntry");
named(candidateEntryOutput, "CandidateEntry");
