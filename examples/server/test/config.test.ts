import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { resolveAuthSecret } from "../src/auth-secret.js";
import { ConfigError, loadConfig } from "../src/config.js";
import { nodeServerOptions } from "../src/server.js";
import { createStorage } from "../src/storage.js";

const cwd = "/srv/quire";
const load = (env: Record<string, string | undefined>) => loadConfig(env, { cwd });
const secret = "s".repeat(32);

/** Each variable with values that must stop the server. */
const invalid: Record<string, string[]> = {
  AUTH_SECRET: ["short", "x".repeat(31), `replace-me-${"x".repeat(32)}`, `${"x".repeat(30)}REPLACE-ME`],
  NOINDEX: ["1", "0", "yes", "on", "TRUE", "False", " true"],
  PUBLIC_API_ENABLED: ["1", "0", "yes", "no", "on", "off"],
  RSS_FEEDS_ENABLED: ["1", "yes", "on"],
  TRUST_PROXY: ["0", "yes", "on"],
  RATE_LIMIT_ENABLED: ["1", "0", "yes", "on"],
  RATE_LIMIT_SEARCH_PER_MIN: ["-1", "1.5", "ten", "1e3", "0x10"],
  STORAGE_DRIVER: ["LOCAL", "S3", "gcs", "fs", "minio"],
  DISCOVER: ["on", "LATEST", "true", "none"],
  SITE_ORIGIN: [
    "example.com",
    "ftp://example.com",
    "https://example.com/blog",
    "https://example.com/?a=1",
    "https://example.com/#top",
    "https://example.com?",
    "https://user:pass@example.com",
    "https://",
  ],
  SITE_PATH_PREFIX: ["blog", "/blog/", "/", "/a//b", "/a/../b", "/a b", "/blog?x"],
  SITE_LANGUAGE: ["zh_CN", "en_US", "english", "e", "123", "en-", "-en"],
  SITE_TIME_ZONE: ["Mars/Olympus", "+01:00", "utc+1", "Europe/Nowhere", "../UTC"],
  PAGE_SIZE: ["0", "101", "-5", "abc", "25.5"],
  ARCHIVE_PAGE_SIZE: ["0", "1001"],
  RSS_FEED_LIMIT: ["0", "201"],
  SUMMARY_MAX_CHARS: ["49", "5001"],
  UPLOAD_MAX_FILE_SIZE_MB: ["0", "102401", "1GB"],
  SLUG_ID_LENGTH: ["3", "27"],
  RESPONSE_CACHE: ["true", "ON", "yes", "0"],
  RESPONSE_CACHE_MAX_MB: ["0", "65537", "32MB", "1.5"],
  REQUEST_TIMEOUT_SECONDS: ["-1", "86401", "1h", "2.5"],
  REQUEST_BODY_IDLE_SECONDS: ["-1", "3601", "60s"],
  PORT: ["-1", "65536", "http", "80.5"],
  HOST: ["bad host", "http://localhost", "a_b.example", "-leading.example"],
  DATABASE_URL: ["mysql://localhost/db", "postgres://", "sqlite:", "file://", "redis://x"],
  DEV_API_TOKEN: ["has space"],
  INTERNAL_ADMIN_TOKEN: ["short", "x".repeat(15), `${"x".repeat(16)} y`],
  CORS_ORIGINS: [
    "example.com",
    "https://a.example,https://b.example/path",
    "*,https://a.example",
    "ftp://a.example",
  ],
};

/** Each variable with values that must be accepted, and what they become. */
const valid: [string, string, (config: ReturnType<typeof load>) => unknown, unknown][] = [
  ["AUTH_SECRET", secret, (c) => c.authSecret, secret],
  ["NOINDEX", "true", (c) => c.noindex, true],
  ["PUBLIC_API_ENABLED", "false", (c) => c.publicApiEnabled, false],
  ["RSS_FEEDS_ENABLED", "false", (c) => c.rssFeedsEnabled, false],
  ["TRUST_PROXY", "true", (c) => c.trustProxy, true],
  ["RATE_LIMIT_ENABLED", "false", (c) => c.rateLimit.enabled, false],
  ["RATE_LIMIT_SEARCH_PER_MIN", "0", (c) => c.rateLimit.searchPerMinute, 0],
  ["STORAGE_DRIVER", "s3", (c) => c.storageDriver, "s3"],
  ["STORAGE_DRIVER", "r2", (c) => c.storageDriver, "r2"],
  ["DISCOVER", "latest", (c) => c.discover, "latest"],
  ["SITE_ORIGIN", "https://example.com", (c) => c.site.origin, "https://example.com"],
  ["SITE_ORIGIN", "http://localhost:8080/", (c) => c.site.origin, "http://localhost:8080"],
  ["SITE_ORIGIN", "https://EXAMPLE.com:443", (c) => c.site.origin, "https://example.com"],
  ["SITE_PATH_PREFIX", "/blog", (c) => c.site.pathPrefix, "/blog"],
  ["SITE_PATH_PREFIX", "/sites/my-blog", (c) => c.site.pathPrefix, "/sites/my-blog"],
  ["SITE_LANGUAGE", "zh-CN", (c) => c.site.language, "zh-CN"],
  ["SITE_LANGUAGE", "pt-br", (c) => c.site.language, "pt-BR"],
  ["SITE_TIME_ZONE", "Europe/Paris", (c) => c.site.timeZone, "Europe/Paris"],
  ["SITE_TIME_ZONE", "europe/paris", (c) => c.site.timeZone, "Europe/Paris"],
  [
    "SITE_TIME_ZONE",
    "America/Argentina/Buenos_Aires",
    (c) => c.site.timeZone,
    "America/Argentina/Buenos_Aires",
  ],
  ["PAGE_SIZE", "100", (c) => c.pageSize, 100],
  ["PAGE_SIZE", " 42 ", (c) => c.pageSize, 42],
  ["ARCHIVE_PAGE_SIZE", "1", (c) => c.archivePageSize, 1],
  ["RSS_FEED_LIMIT", "200", (c) => c.rssFeedLimit, 200],
  ["SUMMARY_MAX_CHARS", "50", (c) => c.summaryMaxChars, 50],
  ["UPLOAD_MAX_FILE_SIZE_MB", "2", (c) => c.uploadMaxBytes, 2 * 1024 * 1024],
  ["SLUG_ID_LENGTH", "26", (c) => c.slugIdLength, 26],
  ["RESPONSE_CACHE", "off", (c) => c.responseCache, { enabled: false, maxBytes: 32 * 1024 * 1024 }],
  ["RESPONSE_CACHE_MAX_MB", "8", (c) => c.responseCache, { enabled: true, maxBytes: 8 * 1024 * 1024 }],
  ["PORT", "0", (c) => c.port, 0],
  ["PORT", "65535", (c) => c.port, 65535],
  ["HOST", "0.0.0.0", (c) => c.host, "0.0.0.0"],
  ["HOST", "::", (c) => c.host, "::"],
  ["HOST", "localhost", (c) => c.host, "localhost"],
  ["DATA_DIR", "/var/lib/quire", (c) => c.dataDir, "/var/lib/quire"],
  ["DATA_DIR", "state", (c) => c.dataDir, "/srv/quire/state"],
  [
    "DATABASE_URL",
    "postgres://u:p@db:5432/quire",
    (c) => c.database,
    { kind: "postgres", url: "postgres://u:p@db:5432/quire" },
  ],
  ["DATABASE_URL", "postgresql://db/quire", (c) => c.database.kind, "postgres"],
  ["DATABASE_URL", "site.db", (c) => c.database, { kind: "sqlite", url: "/srv/quire/site.db" }],
  ["DATABASE_URL", "file:/tmp/x.db", (c) => c.database, { kind: "sqlite", url: "/tmp/x.db" }],
  ["DATABASE_URL", "sqlite:db/x.db", (c) => c.database, { kind: "sqlite", url: "/srv/quire/db/x.db" }],
  ["DATABASE_URL", ":memory:", (c) => c.database, { kind: "sqlite", url: ":memory:" }],
  ["DEV_API_TOKEN", "dev", (c) => c.devApiToken, "dev"],
  ["INTERNAL_ADMIN_TOKEN", "a".repeat(16), (c) => c.internalAdminToken, "a".repeat(16)],
  ["REQUEST_TIMEOUT_SECONDS", "0", (c) => c.timeouts.requestMs, 0],
  ["REQUEST_TIMEOUT_SECONDS", "90", (c) => c.timeouts.requestMs, 90_000],
  ["REQUEST_BODY_IDLE_SECONDS", "0", (c) => c.timeouts.bodyIdleMs, 0],
  ["REQUEST_BODY_IDLE_SECONDS", "5", (c) => c.timeouts.bodyIdleMs, 5_000],
  ["CORS_ORIGINS", "*", (c) => c.corsOrigins, "*"],
  ["CORS_ORIGINS", " * ", (c) => c.corsOrigins, "*"],
  ["CORS_ORIGINS", "", (c) => c.corsOrigins, []],
  [
    "CORS_ORIGINS",
    "https://a.example, http://localhost:5173/",
    (c) => c.corsOrigins,
    ["https://a.example", "http://localhost:5173"],
  ],
];

describe("loadConfig", () => {
  const cases = Object.entries(invalid).flatMap(([name, values]) =>
    values.map((value) => [name, value] as const),
  );

  it.each(cases)("refuses %s=%j with a ConfigError naming it", (name, value) => {
    let error: unknown;
    try {
      load({ [name]: value });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe(name);
    expect((error as ConfigError).message).toMatch(new RegExp(`^${name}\\b`));
  });

  it.each(valid)("accepts %s=%j", (name, value, pick, expected) => {
    expect(pick(load({ [name]: value }))).toEqual(expected);
  });

  it("runs on embedded defaults with an empty environment", () => {
    const config = load({});
    expect(config).toMatchObject({
      host: "127.0.0.1",
      port: 3000,
      dataDir: "/srv/quire/data",
      database: { kind: "sqlite", url: "/srv/quire/data/quire.db" },
      mediaDir: "/srv/quire/data/media",
      authSecret: undefined,
      devApiToken: undefined,
      internalAdminToken: undefined,
      publicApiEnabled: true,
      noindex: false,
      rssFeedsEnabled: true,
      trustProxy: false,
      rateLimit: { enabled: true, searchPerMinute: 60 },
      corsOrigins: "*",
      storageDriver: "local",
      discover: "off",
      site: { origin: undefined, pathPrefix: "", language: "en", timeZone: "UTC" },
      pageSize: 25,
      archivePageSize: 100,
      rssFeedLimit: 20,
      summaryMaxChars: 300,
      uploadMaxBytes: 1024 * 1024 * 1024,
      slugIdLength: 8,
      responseCache: { enabled: true, maxBytes: 32 * 1024 * 1024 },
      timeouts: { requestMs: 3_600_000, bodyIdleMs: 60_000 },
      warnings: [],
    });
  });

  it("gives node:http the request limit, and the headers Node's 60 s or less, also with no request limit", () => {
    expect(nodeServerOptions(load({}).timeouts)).toEqual({
      requestTimeout: 3_600_000,
      headersTimeout: 60_000,
    });
    expect(nodeServerOptions(load({ REQUEST_TIMEOUT_SECONDS: "0" }).timeouts)).toEqual({
      requestTimeout: 0,
      headersTimeout: 60_000,
    });
    expect(nodeServerOptions(load({ REQUEST_TIMEOUT_SECONDS: "20" }).timeouts)).toEqual({
      requestTimeout: 20_000,
      headersTimeout: 20_000,
    });
  });

  it("treats empty values as unset, except CORS_ORIGINS", () => {
    const config = load({ PORT: "", NOINDEX: "", AUTH_SECRET: "", CORS_ORIGINS: "" });
    expect(config.port).toBe(3000);
    expect(config.noindex).toBe(false);
    expect(config.authSecret).toBeUndefined();
    expect(config.corsOrigins).toEqual([]);
  });

  it("names the first invalid variable, in the order the schema lists them", () => {
    expect(() => load({ SLUG_ID_LENGTH: "1", PAGE_SIZE: "0", PORT: "x" })).toThrow(
      expect.objectContaining({ variable: "PORT" }),
    );
  });

  it("resolves relative paths against INIT_CWD (the folder pnpm was started from)", () => {
    const config = loadConfig({ INIT_CWD: "/home/me/site" });
    expect(config.dataDir).toBe("/home/me/site/data");
  });

  it("keeps the SQLite file under DATA_DIR by default", () => {
    expect(load({ DATA_DIR: "/d" }).database).toEqual({ kind: "sqlite", url: "/d/quire.db" });
  });

  it("warns about the retired RATE_LIMIT_DISABLED and about DEV_API_TOKEN", () => {
    const { warnings } = load({ RATE_LIMIT_DISABLED: "true", DEV_API_TOKEN: "dev" });
    expect(warnings.join("\n")).toMatch(/RATE_LIMIT_DISABLED/);
    expect(warnings.join("\n")).toMatch(/DEV_API_TOKEN/);
  });
});

describe("storage configuration", () => {
  it("names the missing S3 variable for the s3 driver", async () => {
    const env = { STORAGE_DRIVER: "s3" };
    await expect(createStorage(load(env), env)).rejects.toMatchObject({
      name: "ConfigError",
      variable: "S3_BUCKET",
    });
  });

  it("names R2_ACCOUNT_ID for the r2 driver", async () => {
    const env = { STORAGE_DRIVER: "r2", S3_BUCKET: "media", S3_PUBLIC_URL: "https://media.example.com" };
    await expect(createStorage(load(env), env)).rejects.toMatchObject({ variable: "R2_ACCOUNT_ID" });
  });

  it("builds S3 storage from complete settings", async () => {
    const env = {
      STORAGE_DRIVER: "s3",
      S3_BUCKET: "media",
      S3_REGION: "eu-west-1",
      S3_PUBLIC_URL: "https://cdn.example.com",
    };
    const storage = await createStorage(load(env), env);
    expect(storage.url("a/b.png")).toBe("https://cdn.example.com/a/b.png");
  });

  it("serves local media under the site prefix", async () => {
    const env = { SITE_PATH_PREFIX: "/blog", DATA_DIR: "/tmp/quire-never-written" };
    const storage = await createStorage(load(env), env);
    expect(storage.url("attachments/x.md")).toBe("/blog/media/attachments/x.md");
  });
});

describe("resolveAuthSecret", () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(path.join(tmpdir(), "quire-secret-"));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("generates a secret once, keeps it in DATA_DIR with mode 0600, and reuses it", async () => {
    const dataDir = path.join(tempDir(), "nested", "data");
    const first = await resolveAuthSecret({ authSecret: undefined, dataDir });
    expect(first.length).toBeGreaterThanOrEqual(48);
    const file = path.join(dataDir, "auth-secret");
    expect(readFileSync(file, "utf8").trim()).toBe(first);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(await resolveAuthSecret({ authSecret: undefined, dataDir })).toBe(first);
  });

  it("gives two concurrent first starts the same secret", async () => {
    const dataDir = tempDir();
    const [a, b] = await Promise.all([
      resolveAuthSecret({ authSecret: undefined, dataDir }),
      resolveAuthSecret({ authSecret: undefined, dataDir }),
    ]);
    expect(a).toBe(b);
  });

  it("prefers AUTH_SECRET and writes nothing", async () => {
    const dataDir = tempDir();
    expect(await resolveAuthSecret({ authSecret: secret, dataDir })).toBe(secret);
    expect(() => statSync(path.join(dataDir, "auth-secret"))).toThrow();
  });

  it("refuses a kept secret that has been edited into something weak", async () => {
    const dataDir = tempDir();
    writeFileSync(path.join(dataDir, "auth-secret"), "too-short\n");
    const read = resolveAuthSecret({ authSecret: undefined, dataDir });
    await expect(read).rejects.toBeInstanceOf(ConfigError);
    await expect(read).rejects.toMatchObject({ variable: expect.stringMatching(/^AUTH_SECRET \(kept in /) });
  });
});
