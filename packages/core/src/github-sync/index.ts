import { disconnectSync } from "./disconnect-sync.js";
import { pushSync } from "./push-sync.js";
import { receiveWebhook } from "./receive-webhook.js";
import { setupSync } from "./setup-sync.js";
import { syncStatus } from "./sync-status.js";

export { isAcceptedOnly } from "./accepted.js";
export { signBody } from "./signature.js";
export { SyncScheduler } from "./sync-scheduler.js";

/** The code-host sync operations (docs/github-sync.md). */
export const githubSyncOperations = [
  setupSync,
  syncStatus,
  disconnectSync,
  pushSync,
  receiveWebhook,
] as const;
