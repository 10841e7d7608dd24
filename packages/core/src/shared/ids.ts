import { TypeID, typeid } from "typeid-js";
import type { IdGenerator } from "../deps.js";

/** Random, time-ordered TypeIDs (UUIDv7 suffix) and random secrets from Web Crypto. */
export function randomIds(): IdGenerator {
  return {
    generate: (prefix) => typeid(prefix).toString(),
    secret: () => {
      const bytes = new Uint8Array(32);
      crypto.getRandomValues(bytes);
      return toBase64Url(bytes);
    },
  };
}

/**
 * Deterministic IDs for tests: valid TypeIDs whose suffixes count up from `start`, so creation
 * order is ID order. Secrets count up too.
 */
export function sequentialIds(start = 1): IdGenerator {
  let next = start;
  return {
    generate: (prefix) => {
      const n = next++;
      const hex = n.toString(16).padStart(18, "0");
      // Version 7 and variant bits keep the UUID well-formed.
      const uuid = `01900000-0000-7${hex.slice(0, 3)}-8${hex.slice(3, 6)}-${hex.slice(6, 18)}`;
      return TypeID.fromUUID(prefix, uuid).toString();
    },
    secret: () => `secret${String(next++).padStart(40, "0")}`,
  };
}

/** base64url without padding. */
export function toBase64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Decodes base64url (padding optional); throws on malformed input. */
export function fromBase64Url(text: string): Uint8Array {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new Error("not base64url");
  const base64 = text.replace(/-/g, "+").replace(/_/g, "/");
  const binary = atob(base64 + "=".repeat((4 - (base64.length % 4)) % 4));
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}
