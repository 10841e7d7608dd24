import { randomBytes } from "node:crypto";
import { link, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { envAuthSecret, parseValue } from "./env-values.js";

/** The file under `DATA_DIR` that keeps the generated auth secret. */
export const authSecretFileName = "auth-secret";

/**
 * `AUTH_SECRET` when configured; otherwise the secret kept in `<dataDir>/auth-secret`, generated
 * on first start (48 base64url characters from 36 random bytes, file mode 0600) and reused after.
 * Two processes starting at once agree: the first file in place wins and the other reads it.
 */
export async function resolveAuthSecret(config: {
  authSecret: string | undefined;
  dataDir: string;
}): Promise<string> {
  if (config.authSecret !== undefined) return config.authSecret;
  const file = path.join(config.dataDir, authSecretFileName);
  const existing = await readSecret(file);
  if (existing !== undefined) return existing;
  await mkdir(config.dataDir, { recursive: true });
  const secret = randomBytes(36).toString("base64url");
  // Written aside, then linked into place: the file appears whole or not at all, and `link`
  // fails if another process got there first, in which case its secret wins.
  const temp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  await writeFile(temp, `${secret}\n`, { mode: 0o600 });
  try {
    await link(temp, file);
    return secret;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    return (await readSecret(file)) ?? secret;
  } finally {
    await rm(temp, { force: true });
  }
}

async function readSecret(file: string): Promise<string | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  return parseValue(`AUTH_SECRET (kept in ${file})`, envAuthSecret, text.trim());
}
