import type { EngineContext } from "../deps.js";
import type { SettingsStore } from "../settings/settings-store.js";
import { readConnection } from "./connection.js";
import { pushExport, recordPushError } from "./push-export.js";

/** How long the scheduler trusts what it last read of the connection (its presence, its debounce). */
const connectionCacheMs = 5_000;

/**
 * The debounced outbound sync of one engine. The engine calls {@link SyncScheduler.afterWrite}
 * after every write it ran; the sync runs once the site has been quiet for the connection's
 * debounce, as one commit for the whole burst. Writes during a running sync are picked up by one
 * more sync right after it. Without a connection nothing is scheduled (its absence is read at most
 * once per five seconds). Failures are logged and kept for `githubSync.status`; the next write
 * tries again. @see docs/github-sync.md § Outbound sync
 */
export class SyncScheduler {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> | undefined;
  private dirty = false;
  private stopped = false;
  private debounce: { ms: number | null; readAt: number } | undefined;

  constructor(private readonly context: EngineContext) {
    schedulers.set(context.settingsStore, this);
  }

  /** A write committed: (re)start the quiet-time timer when a connection exists. */
  afterWrite(): void {
    if (this.stopped) return;
    this.dirty = true;
    if (this.running) return;
    void this.arm();
  }

  /** Forgets what it read of the connection (setup and disconnect on this engine call it). */
  forgetConnection(): void {
    this.debounce = undefined;
  }

  /** Cancels a pending sync and waits for a running one; later writes schedule nothing. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private async arm(): Promise<void> {
    let ms: number | null;
    try {
      ms = await this.debounceMs();
    } catch (err) {
      this.context.logger.warn("github sync: the connection could not be read", { error: String(err) });
      return;
    }
    if (ms === null || this.stopped || this.running) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.fire(), ms);
    // A pending sync does not keep a Node process alive on its own.
    (this.timer as { unref?: () => void }).unref?.();
  }

  private fire(): void {
    this.timer = undefined;
    if (this.stopped || this.running) return;
    this.dirty = false;
    this.running = this.runOnce().finally(() => {
      this.running = undefined;
      if (this.dirty && !this.stopped) void this.arm();
    });
  }

  private async runOnce(): Promise<void> {
    // Nothing escapes: a failure is logged and kept for the status, never an unhandled rejection.
    try {
      const ctx = { ...this.context, settings: await this.context.settingsStore.current() };
      const row = await readConnection(ctx.db);
      if (!row) return;
      try {
        await pushExport(ctx, row);
      } catch (err) {
        this.context.logger.warn("github sync: the outbound sync failed", { error: String(err) });
        await recordPushError(ctx, err).catch(() => {});
      }
    } catch (err) {
      this.context.logger.warn("github sync: the outbound sync could not start", { error: String(err) });
    }
  }

  private async debounceMs(): Promise<number | null> {
    // Elapsed real time for a cache of the scheduler's own, like its timers (not a domain time).
    const now = performance.now();
    if (this.debounce && now - this.debounce.readAt < connectionCacheMs) return this.debounce.ms;
    const row = await readConnection(this.context.db);
    const ms = row ? Number(row.debounce_ms) : null;
    this.debounce = { ms, readAt: now };
    return ms;
  }
}

/** Each engine's scheduler, found from an operation's context (one settings store per engine). */
const schedulers = new WeakMap<SettingsStore, SyncScheduler>();

/** The scheduler of the engine an operation runs in, if it has one. */
export function schedulerOf(ctx: EngineContext): SyncScheduler | undefined {
  return schedulers.get(ctx.settingsStore);
}
