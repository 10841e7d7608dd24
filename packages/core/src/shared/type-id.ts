import { TypeID } from "typeid-js";
import * as z from "zod";

/** The spec's ID prefixes. @see spec § Conventions */
export const idPrefixes = {
  post: "pst",
  media: "med",
  upload: "upl",
  collection: "col",
  smartCollection: "smc",
  customUrl: "pth",
  directoryItem: "cdi",
  navItem: "nav",
} as const;

/** One of the spec's ID prefixes. */
export type IdPrefix = (typeof idPrefixes)[keyof typeof idPrefixes];

/** True when `value` is a well-formed TypeID with exactly this prefix. */
export function isTypeId(value: string, prefix: string): boolean {
  if (!value.startsWith(`${prefix}_`)) return false;
  try {
    return TypeID.fromString(value).getType() === prefix;
  } catch {
    return false;
  }
}

/** True when `value` looks like any TypeID (used to refuse IDs passed as cursors). */
export function looksLikeTypeId(value: string): boolean {
  return /^[a-z]{1,63}_[0-9a-z]{26}$/.test(value);
}

/** A zod schema for a TypeID with the given prefix; anything else is a 400. */
export function typeId(prefix: IdPrefix) {
  return z.string().refine((value) => isTypeId(value, prefix), { message: `Expected a ${prefix}_ ID` });
}
