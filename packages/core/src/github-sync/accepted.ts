/**
 * Marks an operation's answer as "accepted, not acted on": the delivery was understood and left
 * alone (an event the site does not handle, a push to another branch, a push that must wait for
 * the code host). The HTTP adapter answers it 202 instead of the route's status. The mark is a
 * symbol, so the JSON answer is the same object without it.
 */
const acceptedOnlyMark = Symbol.for("quire.acceptedOnly");

/** The answer, marked. */
export function acceptedOnly<T extends object>(answer: T): T {
  Object.defineProperty(answer, acceptedOnlyMark, { value: true, enumerable: false });
  return answer;
}

/** True for an answer marked by {@link acceptedOnly}. */
export function isAcceptedOnly(value: unknown): boolean {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as { [acceptedOnlyMark]?: unknown })[acceptedOnlyMark] === true
  );
}
