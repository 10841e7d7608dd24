/** The kinds of stored file. @see spec § Media record */
export const mediaKinds = ["image", "video", "audio", "text", "document"] as const;

/** One media kind. */
export type MediaKind = (typeof mediaKinds)[number];

const bits: Record<MediaKind, number> = { image: 1, video: 2, audio: 4, text: 8, document: 16 };

/** The bit set of kinds present, stored on Thread roots for the `media` list filter. */
export function mediaKindBits(kinds: Iterable<string>): number {
  let mask = 0;
  for (const kind of kinds) mask |= bits[kind as MediaKind] ?? 0;
  return mask;
}

/** The bit of one kind. */
export function mediaKindBit(kind: MediaKind): number {
  return bits[kind];
}
