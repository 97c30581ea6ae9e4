import { describe, expect, test } from "vitest";
import { SEMANTIC_STAGE } from "../src/index.js";

describe("semantic stub", () => {
  test("declares that stage B is not implemented", () => {
    expect(SEMANTIC_STAGE).toBe("not-implemented");
  });
});
