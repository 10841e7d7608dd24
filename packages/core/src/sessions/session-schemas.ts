import * as z from "zod";

/** Shortest owner password accepted by `owner.setPassword`, in characters. */
export const minPasswordLength = 8;
/** Longest password read, in characters (a longer one is refused before it is hashed). */
export const maxPasswordLength = 1024;
/** How long a session lasts unless the sign-in asks otherwise: 30 days. */
export const defaultSessionSeconds = 30 * 24 * 60 * 60;
/** Longest session: 400 days, the most a browser keeps a cookie (RFC 6265bis § 5.5). */
export const maxSessionSeconds = 400 * 24 * 60 * 60;

export const setPasswordInput = z.object({
  password: z
    .string()
    .min(minPasswordLength, `Use at least ${minPasswordLength} characters`)
    .max(maxPasswordLength, `Use at most ${maxPasswordLength} characters`),
});

export const setPasswordOutput = z.object({
  success: z.literal(true),
  /** Sessions signed out by the change (every one that was open). */
  revokedSessions: z.number().int(),
});

export const signInInput = z.object({
  password: z
    .string()
    .min(1, "Enter the password")
    .max(maxPasswordLength, `Use at most ${maxPasswordLength} characters`),
  /** Lifetime of the session from now, in seconds. */
  maxAgeSeconds: z.number().int().min(60).max(maxSessionSeconds).default(defaultSessionSeconds),
});

export const signInOutput = z.object({
  /** The session secret, shown once: the adapter puts it in the cookie; only its hash is stored. */
  token: z.string(),
  /** When the session ends (Unix seconds). */
  expiresAt: z.number().int(),
});

export const signOutInput = z.object({ token: z.string().max(256) });

export const signOutOutput = z.object({ success: z.literal(true) });

export const revokeAllInput = z.object({});

export const revokeAllOutput = z.object({ success: z.literal(true), revokedSessions: z.number().int() });
