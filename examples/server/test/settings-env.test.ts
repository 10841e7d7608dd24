import { createTestEngine } from "@quire/core/testing";
import { describe, expect, it, onTestFinished } from "vitest";
import { ConfigError, loadConfig } from "../src/config.js";

const load = (env: Record<string, string | undefined>) => loadConfig(env, { cwd: "/srv/quire" });

/** The variable a configuration error names, or "OK". */
function variableOf(env: Record<string, string>): string {
  try {
    load(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.variable;
    throw err;
  }
  return "OK";
}

describe("site settings from the environment", () => {
  it("stops the server on a value the settings store would refuse, naming the variable", () => {
    const cases: [Record<string, string>, string][] = [
      [{ SITE_NAME: "two\nlines" }, "SITE_NAME"],
      [{ SITE_DESCRIPTION: "x".repeat(501) }, "SITE_DESCRIPTION"],
      [{ SITE_FOOTER: "x".repeat(2001) }, "SITE_FOOTER"],
      [{ ADDITIONAL_LANGUAGES: "fr,fr_CA" }, "ADDITIONAL_LANGUAGES"],
      [{ ADDITIONAL_LANGUAGES: "en" }, "ADDITIONAL_LANGUAGES"],
      [{ SITE_LANGUAGE: "fr", ADDITIONAL_LANGUAGES: "de,FR" }, "ADDITIONAL_LANGUAGES"],
      [{ MULTILINGUAL_ENABLED: "true" }, "MULTILINGUAL_ENABLED"],
      [{ MULTILINGUAL_ENABLED: "yes", ADDITIONAL_LANGUAGES: "fr" }, "MULTILINGUAL_ENABLED"],
      [{ TIME_ZONE: "Mars/Olympus" }, "TIME_ZONE"],
      [{ ARCHIVE_DEFAULT_LAYOUT: "table" }, "ARCHIVE_DEFAULT_LAYOUT"],
      [{ MAIN_RSS_FEED: "all" }, "MAIN_RSS_FEED"],
      [{ RSS_PUBLISH_DELAY_SECONDS: "-1" }, "RSS_PUBLISH_DELAY_SECONDS"],
      [{ RSS_PUBLISH_DELAY_SECONDS: "86401" }, "RSS_PUBLISH_DELAY_SECONDS"],
    ];
    for (const [env, variable] of cases) expect(variableOf(env), JSON.stringify(env)).toBe(variable);
    expect(variableOf({ MULTILINGUAL_ENABLED: "true", ADDITIONAL_LANGUAGES: "fr" })).toBe("OK");
  });

  it("hands the engine only the variables that are set, canonicalised; TIME_ZONE beats SITE_TIME_ZONE", () => {
    expect(load({}).siteSettings).toEqual({ sitePathPrefix: "" });
    expect(
      load({
        SITE_NAME: " Notes ",
        SITE_LANGUAGE: "pt-br",
        ADDITIONAL_LANGUAGES: "EN, es",
        MULTILINGUAL_ENABLED: "true",
        PAGE_SIZE: " 42 ",
        NOINDEX: "true",
        PUBLIC_API_ENABLED: "false",
        SITE_TIME_ZONE: "Europe/Paris",
        SITE_PATH_PREFIX: "/blog",
        RSS_PUBLISH_DELAY_SECONDS: "600",
      }).siteSettings,
    ).toEqual({
      sitePathPrefix: "/blog",
      siteName: "Notes",
      siteLanguage: "pt-BR",
      additionalLanguages: ["en", "es"],
      multilingualEnabled: true,
      pageSize: 42,
      noindex: true,
      publicApiEnabled: false,
      timeZone: "Europe/Paris",
      rssPublishDelaySeconds: 600,
    });
    const both = load({ SITE_TIME_ZONE: "Europe/Paris", TIME_ZONE: "asia/tokyo" });
    expect(both.siteSettings.timeZone).toBe("Asia/Tokyo");
    expect(both.site.timeZone).toBe("Asia/Tokyo");
  });

  it("the engine reports them as the environment's, and a stored value wins over them", async () => {
    const config = load({ SITE_NAME: "From env", PUBLIC_API_ENABLED: "false" });
    const { engine, cleanup } = await createTestEngine({ settings: config.siteSettings });
    onTestFinished(cleanup);
    let answer = await engine.settings.get({});
    expect(answer.settings).toMatchObject({ SITE_NAME: "From env", PUBLIC_API_ENABLED: "false" });
    expect(answer.sources).toMatchObject({
      SITE_NAME: "environment",
      PUBLIC_API_ENABLED: "environment",
      PAGE_SIZE: "default",
    });
    answer = await engine.settings.update({ PUBLIC_API_ENABLED: "true" });
    expect(answer.sources.PUBLIC_API_ENABLED).toBe("stored");
    expect((await engine.siteSettings()).publicApiEnabled).toBe(true);
  });
});
