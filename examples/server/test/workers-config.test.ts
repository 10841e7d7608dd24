import { availableParallelism } from "node:os";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/config.js";

const load = (WORKERS: string | undefined) => loadConfig({ WORKERS }, { cwd: "/srv/quire" });

describe("WORKERS", () => {
  it("defaults to one process, also when empty", () => {
    expect(load(undefined).workers).toBe(1);
    expect(load("").workers).toBe(1);
  });

  it("takes auto (one per core) or a count from 1 to 256", () => {
    expect(load("auto").workers).toBe(availableParallelism());
    expect(load("1").workers).toBe(1);
    expect(load(" 4 ").workers).toBe(4);
    expect(load("256").workers).toBe(256);
  });

  it.each(["0", "-1", "257", "1.5", "two", "AUTO", "max"])(
    "stops the server on %j, naming WORKERS",
    (value) => {
      let error: unknown;
      try {
        load(value);
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).variable).toBe("WORKERS");
      expect((error as Error).message).toContain(JSON.stringify(value));
    },
  );
});
