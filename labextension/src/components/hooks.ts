/** React hooks that tie views to the room model's signals and entries, and to the clock. */
import { ISignal } from '@lumino/signaling';
import { useEffect, useReducer, useRef, useState } from 'react';

import { TranscriptEntry } from '../entries';
import { IEntrySource } from '../model';

/** Re-render whenever `signal` fires. */
export function useSignal<T, U>(signal: ISignal<T, U>): void {
  const [, bump] = useReducer((n: number) => n + 1, 0);
  useEffect(() => {
    const slot = () => bump();
    signal.connect(slot);
    // What fired between the first render and now (the connection often goes online in that
    // gap) would be missed otherwise, and a quiet room sends nothing more: catch up once.
    bump();
    return () => {
      signal.disconnect(slot);
    };
  }, [signal]);
}

/** An entry as it is now, read again when it changes, at most once per frame: a streamed reply
 * may bring many deltas within one frame. */
export function useEntry(source: IEntrySource): TranscriptEntry {
  const [entry, setEntry] = useState(() => source.read());
  useEffect(() => {
    let frame = 0;
    setEntry(source.read());
    const stop = source.observe(() => {
      if (!frame) {
        frame = requestAnimationFrame(() => {
          frame = 0;
          setEntry(source.read());
        });
      }
    });
    return () => {
      stop();
      cancelAnimationFrame(frame);
    };
  }, [source]);
  return entry;
}

/** A value recomputed once a second (countdowns, elapsed times). */
function useTicking(compute: () => number, dependency: unknown): number {
  const latest = useRef(compute);
  latest.current = compute;
  const [value, setValue] = useState(compute);
  useEffect(() => {
    setValue(latest.current());
    const timer = window.setInterval(() => setValue(latest.current()), 1000);
    return () => window.clearInterval(timer);
  }, [dependency]);
  return value;
}

/** Seconds left until `deadline` (epoch seconds). */
export function useCountdown(deadline: number): number {
  return useTicking(() => Math.max(0, Math.round(deadline - Date.now() / 1000)), deadline);
}

/** Seconds since `start` (epoch seconds); 0 without a start. */
export function useElapsed(start?: number): number {
  return useTicking(() => (start ? Math.max(0, Math.round(Date.now() / 1000 - start)) : 0), start);
}
