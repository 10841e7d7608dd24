import { describe, expect, it } from "vitest";
import { s3OptionsFromEnv } from "./index.js";

const keys = { S3_ACCESS_KEY_ID: "AKIA", S3_SECRET_ACCESS_KEY: "secret" };

describe("s3OptionsFromEnv", () => {
  it("reads every S3 variable", () => {
    const env = {
      S3_BUCKET: "media",
      S3_REGION: "eu-west-3",
      S3_ENDPOINT: "http://127.0.0.1:9000",
      S3_FORCE_PATH_STYLE: "true",
      S3_PUBLIC_URL: "https://cdn.example.com",
      ...keys,
    };
    expect(s3OptionsFromEnv(env, "s3")).toEqual({
      bucket: "media",
      region: "eu-west-3",
      endpoint: "http://127.0.0.1:9000",
      forcePathStyle: true,
      publicBaseUrl: "https://cdn.example.com",
      credentials: { accessKeyId: "AKIA", secretAccessKey: "secret" },
    });
  });

  it("leaves optional values to the SDK, and empty values count as unset", () => {
    expect(s3OptionsFromEnv({ S3_BUCKET: "media", S3_REGION: "us-east-2", S3_ENDPOINT: "" }, "s3")).toEqual({
      bucket: "media",
      region: "us-east-2",
      endpoint: undefined,
      forcePathStyle: undefined,
      credentials: undefined,
      publicBaseUrl: undefined,
    });
    const compatible = s3OptionsFromEnv(
      { S3_BUCKET: "m", S3_ENDPOINT: "http://minio:9000", S3_FORCE_PATH_STYLE: "false" },
      "s3",
    );
    expect(compatible).toMatchObject({
      region: "us-east-1",
      forcePathStyle: false,
      publicBaseUrl: undefined,
    });
    expect(
      s3OptionsFromEnv({ S3_BUCKET: "m", S3_REGION: "x", S3_PUBLIC_URL: "/media" }, "s3").publicBaseUrl,
    ).toBe("/media");
  });

  it("builds the R2 endpoint from the account id, with region auto", () => {
    const env = {
      S3_BUCKET: "media",
      R2_ACCOUNT_ID: "0123abcd",
      S3_PUBLIC_URL: "https://media.example.com",
      ...keys,
    };
    expect(s3OptionsFromEnv(env, "r2")).toMatchObject({
      endpoint: "https://0123abcd.r2.cloudflarestorage.com",
      region: "auto",
      publicBaseUrl: "https://media.example.com",
    });
    const eu = {
      ...env,
      R2_ACCOUNT_ID: undefined,
      S3_ENDPOINT: "https://0123abcd.eu.r2.cloudflarestorage.com",
    };
    expect(s3OptionsFromEnv(eu, "r2").endpoint).toBe("https://0123abcd.eu.r2.cloudflarestorage.com");
  });

  it.each([
    ["s3", {}, "S3_BUCKET"],
    ["s3", { S3_BUCKET: "m" }, "S3_REGION"],
    ["s3", { S3_BUCKET: "m", S3_REGION: "x", S3_FORCE_PATH_STYLE: "yes" }, "S3_FORCE_PATH_STYLE"],
    ["s3", { S3_BUCKET: "m", S3_REGION: "x", S3_FORCE_PATH_STYLE: "TRUE" }, "S3_FORCE_PATH_STYLE"],
    ["s3", { S3_BUCKET: "m", S3_ENDPOINT: "minio:9000" }, "S3_ENDPOINT"],
    ["s3", { S3_BUCKET: "m", S3_ENDPOINT: "ftp://minio" }, "S3_ENDPOINT"],
    ["s3", { S3_BUCKET: "m", S3_REGION: "x", S3_PUBLIC_URL: "cdn.example.com" }, "S3_PUBLIC_URL"],
    ["s3", { S3_BUCKET: "m", S3_REGION: "x", S3_ACCESS_KEY_ID: "a" }, "S3_SECRET_ACCESS_KEY"],
    ["s3", { S3_BUCKET: "m", S3_REGION: "x", S3_SECRET_ACCESS_KEY: "s" }, "S3_ACCESS_KEY_ID"],
    ["r2", { S3_BUCKET: "m", S3_PUBLIC_URL: "https://cdn" }, "R2_ACCOUNT_ID"],
    ["r2", { S3_BUCKET: "m", R2_ACCOUNT_ID: "a.b/c", S3_PUBLIC_URL: "https://cdn" }, "R2_ACCOUNT_ID"],
    ["r2", { S3_BUCKET: "m", R2_ACCOUNT_ID: "abc" }, "S3_PUBLIC_URL"],
  ] as const)("%s: %j names %s in its error", (driver, env, variable) => {
    expect(() => s3OptionsFromEnv(env, driver)).toThrow(variable);
  });
});
