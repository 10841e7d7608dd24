import * as z from "zod";

/** An incremental SHA-256: Web Crypto has no streaming digest, so this is the one seam to the runtime. */
export interface Sha256 {
  update(chunk: Uint8Array): void;
  /** The digest, base64 encoded with padding, as `checksumSha256` is sent. */
  digest(): string;
}

/**
 * A streaming SHA-256 from the runtime's `node:crypto` (Node, Bun, Deno, and Workers with
 * `nodejs_compat`), loaded only when a checksum is to be verified.
 */
export async function createSha256(): Promise<Sha256> {
  const { createHash } = await import("node:crypto");
  const hash = createHash("sha256");
  return {
    update: (chunk) => {
      hash.update(chunk);
    },
    digest: () => hash.digest("base64"),
  };
}

/** `checksumSha256`: the base64 (or base64url) SHA-256 of the file, stored as padded base64. */
export const checksumParam = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9+/_-]{43}=?$/, "Expected the base64 SHA-256 of the file (32 bytes)")
  .transform((value) => `${value.replace(/-/g, "+").replace(/_/g, "/").replace(/=$/, "")}=`);
