import type { ArchiveProgress } from "@quire/core";

/**
 * A one-line progress bar for long exports and imports, redrawn in place on a terminal (`\r`, at
 * most ten times a second) and silent otherwise, so logs and pipes get no control characters.
 */
export function progressBar(
  write: (text: string) => void,
  isTTY: boolean,
  label: string,
): {
  update: (progress: ArchiveProgress) => void;
  done: () => void;
} {
  let last = 0;
  let drawn = false;
  const width = 30;
  return {
    update(progress) {
      if (!isTTY) return;
      const now = Date.now();
      if (now - last < 100 && progress.done < progress.total) return;
      last = now;
      const share = progress.total > 0 ? Math.min(1, progress.done / progress.total) : 1;
      const filled = Math.round(share * width);
      const bar = `${"#".repeat(filled)}${"-".repeat(width - filled)}`;
      const what = progress.phase === "rows" ? "rows" : "files";
      write(
        `\r${label} [${bar}] ${String(Math.floor(share * 100)).padStart(3)}% ${what} ${progress.done}/${progress.total}\x1b[K`,
      );
      drawn = true;
    },
    done() {
      if (drawn) write("\n");
      drawn = false;
    },
  };
}
