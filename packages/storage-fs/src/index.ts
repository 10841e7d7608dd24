export { createFsStorage, type FsStorageOptions } from "./fs-storage.js";
