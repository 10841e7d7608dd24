/**
 * Marks an operation's JSON answer as one that can change with the clock alone, with no write to
 * the site (a post leaving its publish delay, say): a cache of public answers keyed by the site's
 * content version must not keep it (docs/caching.md). Documents say the same with
 * `RawAnswer.variesWithTime`. The mark is a symbol, so the JSON answer is the same object without it.
 */
const variesWithTimeMark = Symbol.for("quire.variesWithTime");

/** The answer, marked. */
export function markVariesWithTime<T extends object>(answer: T): T {
  Object.defineProperty(answer, variesWithTimeMark, { value: true, enumerable: false });
  return answer;
}

/** True for an answer marked by {@link markVariesWithTime}. */
export function variesWithTime(value: unknown): boolean {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as { [variesWithTimeMark]?: unknown })[variesWithTimeMark] === true
  );
}
