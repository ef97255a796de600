import { describe, expect, it } from 'vitest';

import { splitFences } from '../src/fences';
import { promptNotice } from '../src/notice';
import { IQueueItem } from '../src/types';

function item(id: string, state: IQueueItem['state'] = 'submitted'): IQueueItem {
  return { id, author: 'bob', text: '', target: null, state, submitted_at: 0 };
}

describe("the prompt box's note on a sent prompt, from the live queue alone", () => {
  it('follows the queue: ahead of it, next, running', () => {
    expect(promptNotice([item('a', 'working'), item('b'), item('mine')], 'mine')).toBe(
      'Your prompt is queued: 2 ahead of it.'
    );
    // Two people withdrew theirs.
    expect(promptNotice([item('mine')], 'mine')).toBe('Your prompt is next.');
    expect(promptNotice([item('mine', 'working')], 'mine')).toBe('Your prompt is running.');
    expect(promptNotice([item('mine', 'input-required'), item('c')], 'mine')).toBe(
      'Your prompt is running.'
    );
  });

  it('says nothing once the prompt left the queue, however fast its turn was', () => {
    // It ran and finished (or was withdrawn) before this reader saw it queued.
    expect(promptNotice([], 'mine')).toBe('');
    expect(promptNotice([item('later', 'working')], 'mine')).toBe('');
  });
});

describe("a prompt's fenced code blocks", () => {
  it('are split from its text, in order; a language tag is dropped; an open fence runs on', () => {
    const prompt = 'Why does this fail?\n```python\nx = 1\n  y\n```\nThanks.\n```\nopen';
    expect(splitFences(prompt)).toEqual([
      { code: false, text: 'Why does this fail?' },
      { code: true, text: 'x = 1\n  y' },
      { code: false, text: 'Thanks.' },
      { code: true, text: 'open' }
    ]);
    expect(splitFences('no code here\nat all')).toEqual([
      { code: false, text: 'no code here\nat all' }
    ]);
  });
});
