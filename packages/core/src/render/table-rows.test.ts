import { describe, expect, it } from "vitest";
import { tableCells, tableDelimiterCells } from "./table-rows.js";

describe("table rows", () => {
  it("counts a header row's cells with text", () => {
    expect(tableCells("| a | b |")).toBe(2);
    expect(tableCells("|a|b")).toBe(2);
    expect(tableCells("| | a |")).toBe(1);
  });

  it("takes no line for a header unless it plainly is one", () => {
    expect(tableCells("a | b")).toBe(0);
    expect(tableCells("| a \\| b |")).toBe(0);
  });

  it("counts a delimiter row's cells", () => {
    expect(tableDelimiterCells("| --- | :-: | --: |")).toBe(3);
    expect(tableDelimiterCells("|-|")).toBe(1);
  });

  it("refuses what is not plainly a delimiter row", () => {
    for (const line of ["--- | ---", "| --- | x |", "| --- ", "| : |", "||", "|"]) {
      expect(tableDelimiterCells(line), line).toBe(-1);
    }
  });
});
