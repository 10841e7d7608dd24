import { randomBytes } from "node:crypto";

/** A user of the host app. Only the site owner may write to Quire. */
export interface User {
  name: string;
  siteOwner: boolean;
}

/** The host app's sessions: a stand-in for whatever session library the app already uses. */
export interface SessionStore {
  /** Starts a session and returns its id (the cookie value). */
  create(user: User): string;
  get(id: string): User | undefined;
}

/** Sessions kept in memory (enough for an example; a real app has its own). */
export function createMemorySessions(): SessionStore {
  const sessions = new Map<string, User>();
  return {
    create(user) {
      const id = randomBytes(24).toString("base64url");
      sessions.set(id, user);
      return id;
    },
    get: (id) => sessions.get(id),
  };
}
