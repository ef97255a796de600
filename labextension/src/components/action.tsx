/**
 * Every button of the panel acts through `useAction`: the request runs, the buttons of that
 * place are disabled meanwhile, and a refusal (a 403, a 409 such as `already_aborting`, the
 * server out of reach) is shown right there, to the person who pressed it, as an alert. It goes
 * on that place's next action, when dismissed, or after `REFUSAL_SHOWN_MS`: a refusal is news
 * about one click, and banners left standing piled up and took a narrow panel's room.
 */
import React, { useCallback, useEffect, useRef, useState } from 'react';

import { refusalMessage } from '../api';

/** How long a refusal stays unless dismissed: long enough to read twice. */
export const REFUSAL_SHOWN_MS = 12_000;

export interface IAction {
  /** A request of this place is on its way. */
  readonly busy: boolean;
  /** Why the last request was refused ('' if it was not). */
  readonly refusal: string;
  /** Run `act`; its result, or undefined when it was refused (the refusal is shown). */
  run<T>(act: () => Promise<T>): Promise<T | undefined>;
  dismiss(): void;
}

export function useAction(): IAction {
  const [busy, setBusy] = useState(false);
  const [refusal, setRefusal] = useState('');
  const mounted = useRef(true);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);
  const run = useCallback(async <T,>(act: () => Promise<T>): Promise<T | undefined> => {
    setRefusal('');
    setBusy(true);
    try {
      return await act();
    } catch (error) {
      if (mounted.current) {
        setRefusal(refusalMessage(error));
      }
      return undefined;
    } finally {
      if (mounted.current) {
        setBusy(false);
      }
    }
  }, []);
  const dismiss = useCallback(() => setRefusal(''), []);
  useEffect(() => {
    if (!refusal) {
      return;
    }
    const timer = setTimeout(dismiss, REFUSAL_SHOWN_MS);
    return () => clearTimeout(timer);
  }, [refusal, dismiss]);
  return { busy, refusal, run, dismiss };
}

/** The refusal of `action`, if any, where it is rendered. */
export function Refusal(props: { action: IAction }): JSX.Element | null {
  const { refusal, dismiss } = props.action;
  if (!refusal) {
    return null;
  }
  return (
    <div className="jp-CopilotRoom-refusal" role="alert">
      <span className="jp-CopilotRoom-refusalText">{refusal}</span>
      <button
        className="jp-mod-styled jp-CopilotRoom-small"
        aria-label="Dismiss this message"
        onClick={dismiss}
      >
        ×
      </button>
    </div>
  );
}
