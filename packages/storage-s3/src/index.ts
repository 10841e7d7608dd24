export { createS3Client, type S3ClientLike, type S3ConnectionOptions } from "./client.js";
export { s3OptionsFromEnv } from "./options-from-env.js";
export { createS3Storage, type S3StorageOptions } from "./s3-storage.js";
