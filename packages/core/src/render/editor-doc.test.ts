import { describe, expect, it } from "vitest";
import { EngineError } from "../errors.js";
import { readEditorDoc } from "./editor-doc.js";

describe("readEditorDoc", () => {
  it("reads a document, keeping unknown nodes, attrs and marks for the converter to judge", () => {
    const doc = {
      type: "doc",
      content: [
        {
          type: "custom",
          attrs: { a: 1 },
          content: [{ type: "text", text: "x", marks: [{ type: "weird", attrs: { b: 2 } }] }],
        },
      ],
    };
    expect(readEditorDoc(JSON.stringify(doc))).toEqual(doc);
  });

  it("treats null attrs, content and marks as absent and drops unknown keys", () => {
    expect(
      readEditorDoc(
        '{"type":"doc","attrs":null,"content":[{"type":"paragraph","content":null,"marks":null,"extra":1}]}',
      ),
    ).toEqual({
      type: "doc",
      content: [{ type: "paragraph" }],
    });
  });

  it.each([
    ["not JSON", "{"],
    ["an array", "[]"],
    ["a number", "1"],
    ["another top node", '{"type":"paragraph"}'],
    ["no top type", "{}"],
    ["a child without type", '{"type":"doc","content":[{}]}'],
    ["a child that is a string", '{"type":"doc","content":["text"]}'],
    ["content that is an object", '{"type":"doc","content":{}}'],
    ["text that is not a string", '{"type":"doc","content":[{"type":"text","text":1}]}'],
    ["a mark without type", '{"type":"doc","content":[{"type":"text","text":"a","marks":[{}]}]}'],
    [
      "mark attrs that are a string",
      '{"type":"doc","content":[{"type":"text","text":"a","marks":[{"type":"link","attrs":"x"}]}]}',
    ],
  ])("rejects %s as a body validation error", (_case, body) => {
    expect(() => readEditorDoc(body)).toThrow(EngineError);
    try {
      readEditorDoc(body);
    } catch (error) {
      expect((error as EngineError).code).toBe("VALIDATION_ERROR");
      expect((error as EngineError).details).toMatchObject({ fieldErrors: { body: [expect.any(String)] } });
    }
  });
});
