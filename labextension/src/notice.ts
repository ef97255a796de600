/** The prompt box's note on a prompt its reader sent. */
import { isRunning } from './policy';
import { IQueueItem } from './types';

/**
 * Where a prompt stands, from the live queue alone: running, next, or how many are ahead of
 * it. Nothing once it left the queue (it ran, or was withdrawn), and nothing before the queue
 * shows it: a note kept from an earlier moment would go stale.
 */
export function promptNotice(queue: readonly IQueueItem[], promptId: string): string {
  const ahead = queue.findIndex(item => item.id === promptId);
  if (ahead < 0) {
    return '';
  }
  if (isRunning(queue[ahead])) {
    return 'Your prompt is running.';
  }
  return ahead === 0 ? 'Your prompt is next.' : `Your prompt is queued: ${ahead} ahead of it.`;
}
