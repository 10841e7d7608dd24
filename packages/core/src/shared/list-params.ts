import * as z from "zod";

/** An integer given as a number or as decimal text (query strings); anything else is a 400. */
export const intParam = z.union([
  z.number().int(),
  z
    .string()
    .regex(/^-?\d+$/, "Expected an integer")
    .transform((text) => Number(text)),
]);

/** A list `limit` clamped to [min, max] with a default. @see spec § Conventions rule 4 */
export function limitParam(options: { min?: number; max: number; default: number }) {
  const min = options.min ?? 1;
  return intParam
    .optional()
    .transform((value) =>
      value === undefined ? options.default : Math.min(options.max, Math.max(min, value)),
    );
}

/** A boolean given as a JSON boolean or as the text `true`/`false` (query strings). */
export const boolParam = z.union([
  z.boolean(),
  z.enum(["true", "false"]).transform((text) => text === "true"),
]);

/** The `content` read option: `markdown` returns bodyMarkdown in place of the rendered fields. */
export const contentParam = z.enum(["markdown"]).optional();

/** A cursor string; its meaning is checked by the list that decodes it. */
export const cursorParam = z.string().min(1).optional();
