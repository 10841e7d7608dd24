import { describe, expect, it } from "vitest";
import { readContainerMarkers } from "./container-markers.js";

const kinds = (line: string, max = 100) =>
  readContainerMarkers(line, max).markers.map((marker) => marker.kind);

describe("readContainerMarkers", () => {
  it("reads block quote and list markers with their columns", () => {
    const { markers, indent, contentStart } = readContainerMarkers("> - 1. text", 100);
    expect(markers).toMatchObject([
      { kind: ">", column: 0, contentColumn: 2, interrupts: true },
      { kind: "-", column: 2, contentColumn: 4, interrupts: true },
      { kind: ".", column: 4, contentColumn: 7, interrupts: true },
    ]);
    expect(indent).toBe(7);
    expect(contentStart).toBe(7);
  });

  it("needs a space or the line's end after a list marker", () => {
    expect(kinds("-x")).toEqual([]);
    expect(kinds("1.x")).toEqual([]);
    expect(kinds("-")).toEqual(["-"]);
    expect(kinds(">>x")).toEqual([">", ">"]);
    expect(kinds("1234567890. x")).toEqual([]);
    expect(kinds("2) x")).toEqual([")"]);
  });

  it("does not read a thematic break as markers", () => {
    expect(kinds("- - -")).toEqual([]);
    expect(kinds("* * * *")).toEqual([]);
    expect(kinds("-".repeat(150))).toEqual([]);
    expect(kinds("> - - -")).toEqual([">"]);
    expect(kinds("- - x")).toEqual(["-", "-"]);
  });

  it("tells which markers open a container even after a paragraph line", () => {
    const interrupts = (line: string) =>
      readContainerMarkers(line, 100).markers.map((marker) => marker.interrupts);
    expect(interrupts("- a")).toEqual([true]);
    expect(interrupts("1. a")).toEqual([true]);
    expect(interrupts("2. a")).toEqual([false]);
    expect(interrupts("-")).toEqual([false]);
  });

  it("places the content of an item with five or more spaces one column after the marker", () => {
    expect(readContainerMarkers("-      code", 100).markers[0]?.contentColumn).toBe(2);
    expect(readContainerMarkers("-\tx", 100).markers[0]?.contentColumn).toBe(4);
  });

  it("reads a GFM footnote definition as a container whose content is indented by four", () => {
    expect(readContainerMarkers("> [^note]: text", 100).markers).toMatchObject([
      { kind: ">" },
      { kind: "^", column: 2, contentColumn: 6, interrupts: false },
    ]);
    expect(kinds("[^note] text")).toEqual([]);
    expect(kinds("[note]: /url")).toEqual([]);
  });

  it("stops at the number of markers asked for, whatever the line's length", () => {
    expect(readContainerMarkers("> ".repeat(200_000), 100).markers).toHaveLength(100);
    expect(readContainerMarkers(`${"- ".repeat(99)}x`, 100).markers).toHaveLength(99);
  });
});
