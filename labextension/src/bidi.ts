/**
 * Bidirectional controls (U+202E and the like) can make text read differently from how it runs.
 * The room keeps them as sent; wherever people read a text the panel shows each as a visible,
 * inert mark, `⟨U+202E⟩`, as the server does in exports (`events/strict.py` `bidi_shown`). The
 * code points are the server's own (generated).
 */
import { BIDI_CONTROLS } from './generated/declarations';

const PATTERN = new RegExp(`[${String.fromCodePoint(...BIDI_CONTROLS)}]`, 'gu');

/** `text` with each bidirectional control as a visible mark. */
export function bidiShown(text: string): string {
  return text.replace(
    PATTERN,
    char => `⟨U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}⟩`
  );
}
