import { describe, expect, it } from 'vitest';

import { traySummary } from '../src/tray';

describe("the tray's fold bar", () => {
  it('counts what waits, people at the door first', () => {
    expect(traySummary({ cards: 2, atTheDoor: 1, queued: 3 })).toBe(
      '1 at the door · 2 cards · 3 queued'
    );
    expect(traySummary({ cards: 1, atTheDoor: 0, queued: 0 })).toBe('1 card');
  });

  it('says nothing when nothing waits (the bar is not shown)', () => {
    expect(traySummary({ cards: 0, atTheDoor: 0, queued: 0 })).toBe('');
  });
});
