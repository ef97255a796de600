/**
 * What a card shows of a long text and what it hides. The room cuts each long text of a card
 * (a command, a diff, the cells' code) and names it in the card's `details.truncated`,
 * `{field: {shown, total}}` (jupyter_copilot_room/room/cards/card_content.py), so the panel says how
 * much is hidden and loads the whole while the card is open (`GET approvals/<id>/details`): a
 * cut text is never shown as if it were whole.
 */

/** How much of one text a card shows. */
export interface IHidden {
  shown: number;
  total: number;
}

/** The card's texts that are cut, by field: `summary`, or a key of `details`. */
export type Hidden = Readonly<Record<string, IHidden>>;

/** `GET approvals/<id>/details`: the open card's texts, none cut (`truncated` names those the
 * room keeps only in part even so: beyond 5,000,000 characters). */
export interface IWholeCard {
  id: string;
  summary: string;
  details: Record<string, string>;
  truncated?: Record<string, IHidden>;
}

/** The field name the room gives a card's summary in `truncated`. */
export const SUMMARY = 'summary';

/** The cut texts `details.truncated` names (malformed entries left out). */
export function hiddenIn(details: unknown): Hidden {
  const truncated = (details as { truncated?: unknown } | null | undefined)?.truncated;
  if (!truncated || typeof truncated !== 'object') {
    return {};
  }
  const hidden: Record<string, IHidden> = {};
  for (const [field, sizes] of Object.entries(truncated as Record<string, unknown>)) {
    const { shown, total } = (sizes ?? {}) as Partial<IHidden>;
    if (typeof shown === 'number' && typeof total === 'number' && total > shown) {
      hidden[field] = { shown, total };
    }
  }
  return hidden;
}

/** A card's details without `truncated`: only its texts. */
export function textsOf(details: unknown): Record<string, string> {
  const texts: Record<string, string> = {};
  for (const [key, value] of Object.entries((details ?? {}) as Record<string, unknown>)) {
    if (key !== 'truncated' && typeof value === 'string') {
      texts[key] = value;
    }
  }
  return texts;
}

/** "12,000 more characters hidden". */
export function hiddenWords(hidden: IHidden): string {
  const more = hidden.total - hidden.shown;
  return `${count(more)} more ${more === 1 ? 'character' : 'characters'} hidden`;
}

/** What the whole card says of `field`: its text, and what even the room did not keep. */
export function wholeText(
  whole: IWholeCard,
  field: string
): { text: string | undefined; beyond: string | null } {
  const text = field === SUMMARY ? whole.summary : whole.details[field];
  const kept = whole.truncated?.[field];
  const beyond = kept
    ? `The room keeps only the first ${count(kept.shown)} of its ${count(kept.total)} characters.`
    : null;
  return { text, beyond };
}

function count(n: number): string {
  return n.toLocaleString('en');
}
