import { type CollectionInput, namesCollections } from "../collections/memberships.js";
import { invalidField, validationError } from "../errors.js";
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

/** The fields of a post request that the reply rules read. */
export interface ReplyFields extends CollectionInput {
  pinned?: boolean | undefined;
  pinnedAt?: number | null | undefined;
  visibility?: string | undefined;
}

/** One message per reply rule, keyed by the field a 400 names. */
const replyRules = {
  pinned: "Replies cannot be pinned",
  visibility: "Replies take the visibility of their Thread",
  collectionIds: "Collections are set on the Thread root",
} as const;

/**
 * Replies cannot be pinned, set their own visibility, or carry collections: one 400 naming every
 * field that breaks a rule. A new reply may still send what it gets anyway (`pinned: false`,
 * `pinnedAt: null`, its Thread's visibility); an update to a reply may send no pin or visibility.
 * @see spec § POST /api/posts rules 3–4, § PUT /api/posts/:id rule 4, § States
 */
export function checkReplyFields(
  input: ReplyFields,
  request: { kind: "create"; threadVisibility: string } | { kind: "update" },
): void {
  const creating = request.kind === "create";
  const broken: (keyof typeof replyRules)[] = [];
  const pins = creating
    ? input.pinned === true || (input.pinnedAt ?? null) !== null
    : input.pinned !== undefined || input.pinnedAt !== undefined;
  if (pins) broken.push("pinned");
  if (input.visibility !== undefined && (!creating || input.visibility !== request.threadVisibility)) {
    broken.push("visibility");
  }
  if (namesCollections(input)) broken.push("collectionIds");
  if (broken.length === 0) return;
  const fieldErrors = Object.fromEntries(broken.map((field) => [field, [replyRules[field]]]));
  const message = broken.map((field) => `${field}: ${replyRules[field]}`).join("; ");
  throw validationError(message, { formErrors: [], fieldErrors });
}

/** Only a published post has a publication time: `publishedAt` on a draft is 400. @see spec § States */
export function checkPublishedAt(status: string, publishedAt: number | null | undefined): void {
  if (status === "draft" && publishedAt !== undefined && publishedAt !== null) {
    throw invalidField("publishedAt", "Only published posts have a publication time");
  }
}
