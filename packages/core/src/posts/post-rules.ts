import { validationError } from "../errors.js";
import type { PostFormat } from "./post-schemas.js";

type FormatField = "title" | "url" | "quoteText" | "sourceName" | "sourceUrl";

/** Which of the format-bound fields each format accepts, and which it requires. @see spec § POST /api/posts rule 2 */
const formatFields: Record<PostFormat, { allowed: FormatField[]; required: FormatField[] }> = {
  note: { allowed: ["title"], required: [] },
  link: { allowed: ["title", "url"], required: ["title", "url"] },
  quote: { allowed: ["quoteText", "sourceName", "sourceUrl"], required: ["quoteText"] },
};

const allFormatFields: FormatField[] = ["title", "url", "quoteText", "sourceName", "sourceUrl"];

/** Format-bound field values: `undefined` = not sent, `null` = cleared. */
export type FormatFieldValues = Partial<Record<FormatField, string | null | undefined>>;

/**
 * Checks the fields of one request against a format: `sent` must all suit it, and `merged` (what
 * the post will hold) must carry what the format requires. Throws one 400 naming every bad field.
 */
export function checkFormatFields(
  format: PostFormat,
  sent: FormatFieldValues,
  merged: FormatFieldValues,
): void {
  const rule = formatFields[format];
  const fieldErrors: Record<string, string[]> = {};
  for (const field of allFormatFields) {
    const value = sent[field];
    if (value !== undefined && value !== null && !rule.allowed.includes(field)) {
      fieldErrors[field] = [`Not allowed on a ${format} post`];
    }
  }
  for (const field of rule.required) {
    const value = merged[field];
    if (value === undefined || value === null || value.trim() === "") {
      fieldErrors[field] ??= [`Required on a ${format} post`];
    }
  }
  if (Object.keys(fieldErrors).length > 0) {
    throw validationError(`Fields do not suit a ${format} post`, { formErrors: [], fieldErrors });
  }
}

/** The format-bound fields a format does not keep; cleared when a post changes format. */
export function unsuitedFields(format: PostFormat): FormatField[] {
  return allFormatFields.filter((field) => !formatFields[format].allowed.includes(field));
}

/** `body` xor `bodyMarkdown` and `slug` xor `path`. @see spec § Errors condition 1 */
export function checkExclusiveFields(input: {
  body?: string | null | undefined;
  bodyMarkdown?: string | null | undefined;
  slug?: string | undefined;
  path?: string | undefined;
}): void {
  const fieldErrors: Record<string, string[]> = {};
  if (
    input.body !== undefined &&
    input.bodyMarkdown !== undefined &&
    (input.body !== null || input.bodyMarkdown !== null)
  ) {
    fieldErrors.body = ["Send either body or bodyMarkdown, not both"];
    fieldErrors.bodyMarkdown = ["Send either body or bodyMarkdown, not both"];
  }
  if (input.slug !== undefined && input.path !== undefined) {
    fieldErrors.slug = ["Send either slug or path, not both"];
    fieldErrors.path = ["Send either slug or path, not both"];
  }
  if (Object.keys(fieldErrors).length > 0) {
    throw validationError("Exclusive fields sent together", { formErrors: [], fieldErrors });
  }
}
