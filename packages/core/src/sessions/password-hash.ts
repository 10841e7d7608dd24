import { fromBase64Url, toBase64Url } from "../shared/ids.js";

/**
 * Password hashing with scrypt (RFC 7914), a memory-hard function, from `node:crypto`: built into
 * Node, Bun, Deno and Cloudflare Workers (`nodejs_compat`), computed off the main thread by Node's
 * thread pool. Parameters follow the OWASP Password Storage Cheat Sheet's scrypt row
 * "N=2^15 (32 MiB), r=8, p=3", which it rates as strong as N=2^17, p=1 for less memory per hash.
 *
 * A hash is kept in PHC string form, `$scrypt$ln=15,r=8,p=3$<salt>$<key>` (base64url), so the
 * parameters travel with it and can be raised later without breaking stored hashes.
 *
 * `node:crypto` is imported when a password is first hashed, not when core loads: an embedding
 * that never signs in (its own sessions through the handler's `authenticate` hook) bundles for a
 * runtime without it.
 */
export const scryptParams = { ln: 15, r: 8, p: 3, keyLength: 32, saltLength: 16 } as const;

/** The PHC string of a password hashed with a fresh random salt. */
export async function hashPassword(password: string): Promise<string> {
  const salt = new Uint8Array(scryptParams.saltLength);
  crypto.getRandomValues(salt);
  const { ln, r, p, keyLength } = scryptParams;
  const key = await scrypt(password, salt, { ln, r, p, keyLength });
  return `$scrypt$ln=${ln},r=${r},p=${p}$${toBase64Url(salt)}$${toBase64Url(key)}`;
}

/**
 * True when `password` matches a stored PHC string (compared in constant time); false for a wrong
 * password or a string this module did not write.
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parsePhc(stored);
  if (!parsed) return false;
  const key = await scrypt(password, parsed.salt, { ...parsed.params, keyLength: parsed.key.length });
  let diff = 0;
  for (let i = 0; i < key.length; i++) diff |= (key[i] ?? 0) ^ (parsed.key[i] ?? 0);
  return diff === 0;
}

/**
 * A hash of no one's password, verified when no password is set so that answering "wrong password"
 * takes as long either way.
 */
let decoy: Promise<string> | undefined;
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword("quire decoy password");
  return decoy;
}

interface ScryptParams {
  ln: number;
  r: number;
  p: number;
  keyLength: number;
}

async function scrypt(password: string, salt: Uint8Array, params: ScryptParams): Promise<Uint8Array> {
  const nodeCrypto = await import("node:crypto");
  const N = 2 ** params.ln;
  // scrypt needs 128 * N * r bytes; Node's default ceiling (32 MiB) is exactly that for ln=15, r=8.
  const maxmem = 2 * 128 * N * params.r;
  return new Promise((resolve, reject) => {
    nodeCrypto.scrypt(
      password.normalize("NFC"),
      salt,
      params.keyLength,
      { N, r: params.r, p: params.p, maxmem },
      (err, key) => (err ? reject(err) : resolve(new Uint8Array(key))),
    );
  });
}

function parsePhc(
  stored: string,
): { params: Omit<ScryptParams, "keyLength">; salt: Uint8Array; key: Uint8Array } | null {
  const match = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/.exec(
    stored,
  );
  if (!match) return null;
  const [, ln, r, p, salt, key] = match;
  const params = { ln: Number(ln), r: Number(r), p: Number(p) };
  if (params.ln < 10 || params.ln > 20 || params.r < 1 || params.p < 1) return null;
  try {
    return { params, salt: fromBase64Url(salt as string), key: fromBase64Url(key as string) };
  } catch {
    return null;
  }
}
