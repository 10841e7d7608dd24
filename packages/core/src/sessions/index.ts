import { setOwnerPassword } from "./set-password.js";
import { signIn } from "./sign-in.js";
import { revokeAllSessions, signOut } from "./sign-out.js";

export { hashPassword, verifyPassword } from "./password-hash.js";
export { verifySession } from "./session-token.js";

/** Owner sign-in: the password and browser sessions (docs/authentication.md). */
export const sessionOperations = [setOwnerPassword, signIn, signOut, revokeAllSessions] as const;
