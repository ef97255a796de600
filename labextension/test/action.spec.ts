// @vitest-environment jsdom
/** A refusal is news about one click: it is shown where the button was, and goes by itself after
 * `REFUSAL_SHOWN_MS`, or at that place's next action, so banners never pile up. */
import React, { act } from 'react';
import { createRoot } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { RoomAPIError } from '../src/api';
import { IAction, Refusal, REFUSAL_SHOWN_MS, useAction } from '../src/components/action';

function Place(props: { expose: (action: IAction) => void }): JSX.Element {
  const action = useAction();
  props.expose(action);
  return React.createElement(Refusal, { action });
}

describe('a refusal banner', () => {
  let host: HTMLElement;
  let action: IAction;
  const refuse = () =>
    act(async () => {
      await action.run(() =>
        Promise.reject(
          new RoomAPIError(409, 'not_waiting', 'Only waiting prompts can be withdrawn.')
        )
      );
    });

  beforeEach(async () => {
    vi.useFakeTimers();
    (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;
    host = document.createElement('div');
    const root = createRoot(host);
    await act(async () => {
      root.render(React.createElement(Place, { expose: a => (action = a) }));
    });
  });

  afterEach(() => vi.useRealTimers());

  it('says why, then goes by itself after a while', async () => {
    await refuse();
    expect(host.querySelector('[role="alert"]')?.textContent).toContain(
      'Only waiting prompts can be withdrawn.'
    );
    await act(async () => {
      vi.advanceTimersByTime(REFUSAL_SHOWN_MS - 1000);
    });
    expect(host.querySelector('[role="alert"]')).not.toBeNull(); // long enough to read
    await act(async () => {
      vi.advanceTimersByTime(1000);
    });
    expect(host.querySelector('[role="alert"]')).toBeNull();
  });

  it("goes at that place's next action, and a second refusal is one banner", async () => {
    await refuse();
    await act(async () => {
      await action.run(() => Promise.resolve('done'));
    });
    expect(host.querySelector('[role="alert"]')).toBeNull();
    await refuse();
    await refuse();
    expect(host.querySelectorAll('[role="alert"]')).toHaveLength(1);
  });
});
