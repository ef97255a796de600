/** The words of the tray's fold bar (components/tray.tsx): what it holds, counted, so a reader
 * who folded it still sees that something waits. */

export function traySummary(counts: { cards: number; atTheDoor: number; queued: number }): string {
  const parts: string[] = [];
  if (counts.atTheDoor > 0) {
    parts.push(`${counts.atTheDoor} at the door`);
  }
  if (counts.cards > 0) {
    parts.push(`${counts.cards} ${counts.cards === 1 ? 'card' : 'cards'}`);
  }
  if (counts.queued > 0) {
    parts.push(`${counts.queued} queued`);
  }
  return parts.join(' · ');
}
