import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { Pace } from '../src/pace';

describe('the page pace', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('runs work at once after a quiet while, else all of it together at the next tick', () => {
    const pace = new Pace(50);
    const ran: string[] = [];
    const at = (name: string) => () => ran.push(`${name}@${performance.now()}`);
    const start = performance.now();
    expect(pace.run(at('reply'))).toBeNull(); // ran now
    vi.advanceTimersByTime(10);
    pace.run(at('spoken'));
    vi.advanceTimersByTime(20);
    pace.run(at('reply'));
    const cancel = pace.run(at('cancelled'));
    cancel?.();
    vi.advanceTimersByTime(20);
    vi.advanceTimersByTime(100);
    pace.run(at('later'));
    expect(ran).toEqual(
      [
        ['reply', 0],
        ['spoken', 50],
        ['reply', 50],
        ['later', 150]
      ].map(([name, t]) => `${name}@${start + (t as number)}`)
    );
  });
});
