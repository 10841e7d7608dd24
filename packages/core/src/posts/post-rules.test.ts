import { describe, expect, it } from "vitest";
import { checkPublishedAt, checkReplyFields } from "./post-rules.js";

/** The field names of the 400 a rule check throws, or [] when it passes. */
function brokenFields(check: () => void): string[] {
  try {
    check();
    return [];
  } catch (err) {
    const { code, details } = err as { code: string; details: { fieldErrors: Record<string, string[]> } };
    expect(code).toBe("VALIDATION_ERROR");
    return Object.keys(details.fieldErrors);
  }
}

const create = { kind: "create", threadVisibility: "public" } as const;
const update = { kind: "update" } as const;
const collectionId = "col_01h2xcejqtf2nbrexx3vqjhp41";

describe("reply rules", () => {
  it("let a new reply send what it gets anyway, but not an update", () => {
    for (const fields of [{ pinned: false }, { pinnedAt: null }, { visibility: "public" }]) {
      expect(
        brokenFields(() => checkReplyFields(fields, create)),
        JSON.stringify(fields),
      ).toEqual([]);
      expect(
        brokenFields(() => checkReplyFields(fields, update)),
        JSON.stringify(fields),
      ).toEqual([Object.keys(fields)[0] === "visibility" ? "visibility" : "pinned"]);
    }
  });

  it("refuse pins, another visibility and named collections on both surfaces", () => {
    for (const request of [create, update]) {
      expect(brokenFields(() => checkReplyFields({ pinned: true }, request))).toEqual(["pinned"]);
      expect(brokenFields(() => checkReplyFields({ pinnedAt: 100 }, request))).toEqual(["pinned"]);
      expect(brokenFields(() => checkReplyFields({ visibility: "private" }, request))).toEqual([
        "visibility",
      ]);
      expect(brokenFields(() => checkReplyFields({ collectionIds: [collectionId] }, request))).toEqual([
        "collectionIds",
      ]);
      expect(
        brokenFields(() => checkReplyFields({ collectionEntries: [{ collectionId }] }, request)),
      ).toEqual(["collectionIds"]);
      expect(
        brokenFields(() => checkReplyFields({ collectionIds: [], collectionEntries: [] }, request)),
      ).toEqual([]);
    }
  });

  it("name every broken rule in one 400", () => {
    const fields = { pinned: true, visibility: "private", collectionIds: [collectionId] };
    expect(brokenFields(() => checkReplyFields(fields, update))).toEqual([
      "pinned",
      "visibility",
      "collectionIds",
    ]);
  });
});

describe("publication time", () => {
  it("belongs to published posts only", () => {
    expect(brokenFields(() => checkPublishedAt("draft", 100))).toEqual(["publishedAt"]);
    expect(brokenFields(() => checkPublishedAt("draft", null))).toEqual([]);
    expect(brokenFields(() => checkPublishedAt("draft", undefined))).toEqual([]);
    expect(brokenFields(() => checkPublishedAt("published", 100))).toEqual([]);
  });
});
