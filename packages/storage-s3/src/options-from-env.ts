import type { S3StorageOptions } from "./s3-storage.js";

type Env = Record<string, string | undefined>;

/**
 * Reads S3 settings from environment variables, throwing an Error that names the variable that is
 * missing or invalid. Always: `S3_BUCKET`; optional `S3_REGION`, `S3_ENDPOINT` (an http(s) URL),
 * `S3_FORCE_PATH_STYLE` (`true` or `false`), `S3_PUBLIC_URL` (an http(s) URL or a path from `/`),
 * and `S3_ACCESS_KEY_ID` with `S3_SECRET_ACCESS_KEY` (both or neither: neither falls back to the
 * SDK's provider chain). `s3` needs `S3_REGION` unless `S3_ENDPOINT` is set (then `us-east-1`).
 * `r2` takes its endpoint from `R2_ACCOUNT_ID` (or `S3_ENDPOINT`, e.g. for a jurisdiction), region
 * `auto`, and needs `S3_PUBLIC_URL`, since R2's S3 endpoint is not public. Empty values count as unset.
 */
export function s3OptionsFromEnv(env: Env, driver: "s3" | "r2"): S3StorageOptions {
  const read = (name: string) => (env[name] === "" ? undefined : env[name]);
  const bucket = required(read, "S3_BUCKET");
  let endpoint = optionalUrl(read, "S3_ENDPOINT");
  let region = read("S3_REGION");
  if (driver === "r2") {
    if (!endpoint) {
      const account = required(read, "R2_ACCOUNT_ID");
      if (!/^[a-z0-9-]+$/i.test(account)) throw new Error("R2_ACCOUNT_ID must be a Cloudflare account id");
      endpoint = `https://${account}.r2.cloudflarestorage.com`;
    }
    region ??= "auto";
  } else if (!region) {
    if (!endpoint) throw new Error("S3_REGION is required (or S3_ENDPOINT for an S3-compatible service)");
    region = "us-east-1";
  }
  const publicBaseUrl = read("S3_PUBLIC_URL");
  if (publicBaseUrl === undefined && driver === "r2") throw new Error("S3_PUBLIC_URL is required for r2");
  if (publicBaseUrl !== undefined && !publicBaseUrl.startsWith("/")) optionalUrl(read, "S3_PUBLIC_URL");
  return {
    bucket,
    region,
    endpoint,
    forcePathStyle: booleanVar(read, "S3_FORCE_PATH_STYLE"),
    credentials: credentialsFrom(read),
    publicBaseUrl,
  };
}

function required(read: (name: string) => string | undefined, name: string): string {
  const value = read(name);
  if (value === undefined) throw new Error(`${name} is required`);
  return value;
}

function optionalUrl(read: (name: string) => string | undefined, name: string): string | undefined {
  const value = read(name);
  if (value === undefined) return undefined;
  const protocol = URL.canParse(value) ? new URL(value).protocol : undefined;
  if (protocol !== "http:" && protocol !== "https:") throw new Error(`${name} must be an http(s) URL`);
  return value;
}

function booleanVar(read: (name: string) => string | undefined, name: string): boolean | undefined {
  const value = read(name);
  if (value === undefined) return undefined;
  if (value !== "true" && value !== "false") throw new Error(`${name} must be true or false`);
  return value === "true";
}

function credentialsFrom(read: (name: string) => string | undefined): S3StorageOptions["credentials"] {
  const accessKeyId = read("S3_ACCESS_KEY_ID");
  const secretAccessKey = read("S3_SECRET_ACCESS_KEY");
  if (accessKeyId === undefined && secretAccessKey === undefined) return undefined;
  if (accessKeyId === undefined)
    throw new Error("S3_ACCESS_KEY_ID is required when S3_SECRET_ACCESS_KEY is set");
  if (secretAccessKey === undefined)
    throw new Error("S3_SECRET_ACCESS_KEY is required when S3_ACCESS_KEY_ID is set");
  return { accessKeyId, secretAccessKey };
}
