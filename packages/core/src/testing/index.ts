export { fixedClock } from "../shared/time.js";
export { sequentialIds } from "../shared/ids.js";
export { createTestEngine, openTestDatabase, testDatabaseKind } from "./test-engine.js";
