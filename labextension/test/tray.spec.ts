import { describe, expect, it } from 'vitest';

import { SERVER_OWNER } from '../src/policy';
import { myPlace, peopleHeading, traySummary } from '../src/tray';
import { IParticipant, IQueueItem } from '../src/types';

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

describe("the line that keeps the reader's own waiting prompt in sight", () => {
  const item = (id: string, author: string, state: IQueueItem['state'] = 'submitted') =>
    ({ id, author, text: id, target: null, state, submitted_at: 0 }) as IQueueItem;

  it('counts the waiting prompts before the first of theirs, never the running one', () => {
    const queue = [item('p1', 'bob', 'working'), item('p2', 'carol'), item('p3', 'alice')];
    expect(myPlace(queue, 'alice')).toEqual({
      item: queue[2],
      words: '1 prompt waits before yours'
    });
    expect(myPlace(queue, 'carol')?.words).toBe('Your prompt is next');
  });

  it('names how many more of theirs wait after it', () => {
    const queue = [item('p1', 'alice'), item('p2', 'bob'), item('p3', 'bob'), item('p4', 'alice')];
    expect(myPlace(queue, 'alice')?.words).toBe('Your prompt is next (1 more of yours after it)');
    expect(myPlace(queue, 'bob')?.words).toBe(
      '1 prompt waits before yours (1 more of yours after it)'
    );
  });

  it('is not there for a reader with nothing waiting, their running prompt included', () => {
    expect(myPlace([item('p1', 'alice', 'input-required')], 'alice')).toBeNull();
    expect(myPlace([item('p1', 'bob')], undefined)).toBeNull();
  });
});

describe("the People section's heading", () => {
  const person = (username: string, role: string, online = true) =>
    ({ username, display_name: username, role, online, verified: true }) as IParticipant;

  it('counts as the header does: not a notebook kernel, not someone at the door', () => {
    const people = [
      person('alice', 'host'),
      person('bob', 'member'),
      person('carol', 'viewer', false),
      person(SERVER_OWNER, 'host'), // a kernel with the server's token: no person
      person('dave', 'pending') // knocking: said apart
    ];
    expect(peopleHeading(people)).toBe('People (2 online, someone is waiting)');
    expect(peopleHeading(people.slice(0, 1))).toBe('People (1 online)');
  });
});
