/**
 * How much of the room's `max_prompt_chars` is left, shown near the limit under the prompt box.
 * The limit is read as the room has it now: when the box opens and after a refused send.
 */
import React, { useCallback, useEffect, useState } from 'react';

import { IRoomClient } from '../api';

/** The counter shows from this share of `max_prompt_chars` on. */
export const COUNTER_FROM = 0.8;

/** The room's limit (null while unknown: no counter; the room still refuses a prompt that is
 * too long), and a way to read it again. */
export function usePromptLimit(client: IRoomClient): [number | null, () => Promise<void>] {
  const [maxChars, setMaxChars] = useState<number | null>(null);
  const loadLimit = useCallback(async () => {
    try {
      setMaxChars((await client.settings()).max_prompt_chars);
    } catch {
      setMaxChars(null);
    }
  }, [client]);
  useEffect(() => {
    void loadLimit();
  }, [loadLimit]);
  return [maxChars, loadLimit];
}

/** How many characters are left, shown once the text nears the limit. */
export function CharacterCounter(props: {
  length: number;
  max: number | null;
}): JSX.Element | null {
  const { length, max } = props;
  if (max === null || length < max * COUNTER_FROM) {
    return null;
  }
  const over = length > max;
  return (
    <span className="jp-CopilotRoom-counter" data-over={over} role="status">
      {length.toLocaleString('en')} / {max.toLocaleString('en')}
      {over && ' (too long)'}
    </span>
  );
}
