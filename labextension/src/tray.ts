/** The words of the tray's fold bar (components/tray.tsx): what it holds, counted, so a reader
 * who folded it still sees that something waits; and of the line under it that keeps the
 * reader's own waiting prompt in sight, however much the tray holds. */
import { isKnocking, isPresent } from './policy';
import { IParticipant, IQueueItem } from './types';

/** The People section's heading: "People (2 online)", counted as the header's "2 people" is
 * (`isPresent`): someone at the door and the server's own token (a notebook kernel, a script)
 * are no one in the room; someone knocking is said apart. */
export function peopleHeading(people: readonly IParticipant[]): string {
  const online = people.filter(isPresent).length;
  return `People (${online} online${people.some(isKnocking) ? ', someone is waiting' : ''})`;
}

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

/** The reader's own waiting prompt, as the line above the tray's body says it (null when they
 * have none): the first of theirs in the queue, with how many waiting prompts go before it (the
 * running one is no queue) and how many more of theirs wait after it. */
export interface IMyPlace {
  item: IQueueItem;
  words: string;
}

export function myPlace(queue: readonly IQueueItem[], me: string | undefined): IMyPlace | null {
  const waiting = queue.filter(item => item.state === 'submitted');
  const mine = waiting.filter(item => item.author === me);
  if (mine.length === 0) {
    return null;
  }
  const before = waiting.indexOf(mine[0]);
  const place =
    before === 0
      ? 'Your prompt is next'
      : `${before} ${before === 1 ? 'prompt waits' : 'prompts wait'} before yours`;
  const more = mine.length > 1 ? ` (${mine.length - 1} more of yours after it)` : '';
  return { item: mine[0], words: place + more };
}
