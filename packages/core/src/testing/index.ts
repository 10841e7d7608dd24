export { sequentialIds } from "../shared/ids.js";
export { fixedClock } from "../shared/time.js";
export { codeOf } from "./error-code.js";
export { storageContract } from "./storage-contract.js";
export { createTestEngine, openTestDatabase, tableNames, testDatabaseKind } from "./test-engine.js";
