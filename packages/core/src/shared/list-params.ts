import * as z from "zod";

/**
 * A list `limit`: an integer clamped to [min, max], with a default when absent. Query-string text
 * is converted to a number by the HTTP adapter, never here. @see spec § Conventions rule 4
 */
export function limitParam(options: { min?: number; max: number; default: number }) {
  const min = options.min ?? 1;
  return (
    z
      .number()
      // Any whole number, not only a safe integer (`int()`): 1e20 is clamped like 500, not refused.
      .refine((value) => Number.isInteger(value), {
        error: (issue) => `Expected an integer, received number ${String(issue.input)}`,
      })
      .meta({ type: "integer" })
      .optional()
      .transform((value) =>
        value === undefined ? options.default : Math.min(options.max, Math.max(min, value)),
      )
  );
}

/** The `content` read option: `markdown` returns bodyMarkdown in place of the rendered fields. */
export const contentParam = z.enum(["markdown"]).optional();

/** A cursor string; its meaning is checked by the list that decodes it. */
export const cursorParam = z.string().min(1).optional();
