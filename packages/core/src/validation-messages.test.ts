import { beforeEach, describe, expect, it } from "vitest";
import { openTestEngine } from "../test/support.js";
import type { Engine } from "./engine.js";
import { isEngineError } from "./errors.js";
import { fieldPath } from "./operation.js";

let engine: Engine;

beforeEach(async () => {
  ({ engine } = await openTestEngine());
});

/** The details of the validation error a call fails with. */
async function detailsOf(call: Promise<unknown>) {
  try {
    await call;
  } catch (err) {
    if (isEngineError(err) && err.code === "VALIDATION_ERROR") {
      return {
        message: err.message,
        ...(err.details as { fieldErrors: Record<string, string[]>; formErrors: string[] }),
      };
    }
    throw err;
  }
  throw new Error("the call succeeded");
}

describe("validation messages (every surface: in-process, HTTP, MCP)", () => {
  it("names nested fields by their full path", async () => {
    const details = await detailsOf(
      engine.posts.create({ format: "note", attachments: [{ type: "text", content: "" }] } as never),
    );
    expect(Object.keys(details.fieldErrors)).toEqual(["attachments[0].content"]);
    expect(details.message).toContain("attachments[0].content: ");
  });

  it('says "Required" for a missing field and what a wrongly typed one should be', async () => {
    const missing = await detailsOf(engine.collections.create({ title: "T" } as never));
    expect(missing.fieldErrors).toEqual({ slug: ["Required"] });
    const typed = await detailsOf(engine.posts.list({ limit: "ten" } as never));
    expect(typed.fieldErrors).toEqual({ limit: ['Expected a number, received the text "ten"'] });
    const object = await detailsOf(engine.posts.create({ format: "note", title: { a: 1 } } as never));
    expect(object.fieldErrors.title).toEqual(["Expected a string, received an object"]);
  });

  it("names a field called like an object's own properties (constructor, toString, __proto__) as any other", async () => {
    // A free-form object (the settings) takes any key: each of these, with a value of the wrong
    // type, once made the error's own bookkeeping fail (500) instead of naming the field.
    const body = JSON.parse(
      '{"constructor":true,"toString":{"a":1},"__proto__":{"admin":true},"SITE_NAME":"Kept"}',
    );
    const details = await detailsOf(engine.settings.update(body));
    expect(details.fieldErrors).toEqual({
      constructor: ["Expected a string, received boolean true"],
      toString: ["Expected a string, received an object"],
    });
    expect(Object.keys(details.fieldErrors)).toEqual(["constructor", "toString"]);
    expect(details.message).toBe(
      "Invalid input: constructor: Expected a string, received boolean true; toString: Expected a string, received an object",
    );
    // Refused, so nothing was written.
    expect((await engine.settings.get({})).settings.SITE_NAME).not.toBe("Kept");
  });

  it("writes paths as people do", () => {
    expect(fieldPath(["attachments", 0, "content"])).toBe("attachments[0].content");
    expect(fieldPath(["selection", "collection", 2])).toBe("selection.collection[2]");
    expect(fieldPath(["title"])).toBe("title");
  });
});
