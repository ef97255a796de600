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

/** A value recomputed once a second (countdowns, elapsed times). */
function useTicking(compute: () => number, dependency: unknown): number {
  const [value, setValue] = useState(compute);
  useEffect(() => {
    setValue(compute());
    const timer = window.setInterval(() => setValue(compute()), 1000);
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
  return useTicking(
    () => (start ? Math.max(0, Math.round(Date.now() / 1000 - start)) : 0),
    start
  );
}
