/** React hooks that tie views to the room model's signals and to Y types. */
import { ISignal } from '@lumino/signaling';
import { useEffect, useReducer, useState } from 'react';
import * as Y from 'yjs';

/** Re-render whenever `signal` fires. */
export function useSignal<T>(signal: ISignal<T, any>): void {
  const [, bump] = useReducer((n: number) => n + 1, 0);
  useEffect(() => {
    const slot = () => bump();
    signal.connect(slot);
    return () => {
      signal.disconnect(slot);
    };
  }, [signal]);
}

/** A Y.Map's plain contents, updated when it (or anything inside it) changes. */
export function useYMap(map: Y.Map<any>): Record<string, any> {
  const [value, setValue] = useState(() => map.toJSON());
  useEffect(() => {
    let frame = 0;
    const update = () => {
      // Many deltas can arrive within one frame: render once per frame, not per delta.
      if (!frame) {
        frame = requestAnimationFrame(() => {
          frame = 0;
          setValue(map.toJSON());
        });
      }
    };
    setValue(map.toJSON());
    map.observeDeep(update);
    return () => {
      map.unobserveDeep(update);
      cancelAnimationFrame(frame);
    };
  }, [map]);
  return value;
}

/** Seconds left until `deadline` (epoch seconds), ticking once a second. */
export function useCountdown(deadline: number): number {
  const left = () => Math.max(0, Math.round(deadline - Date.now() / 1000));
  const [seconds, setSeconds] = useState(left);
  useEffect(() => {
    const timer = window.setInterval(() => setSeconds(left()), 1000);
    return () => window.clearInterval(timer);
  }, [deadline]);
  return seconds;
}

/** Seconds since `start` (epoch seconds), ticking once a second. */
export function useElapsed(start?: number): number {
  const since = () => (start ? Math.max(0, Math.round(Date.now() / 1000 - start)) : 0);
  const [seconds, setSeconds] = useState(since);
  useEffect(() => {
    const timer = window.setInterval(() => setSeconds(since()), 1000);
    return () => window.clearInterval(timer);
  }, [start]);
  return seconds;
}
