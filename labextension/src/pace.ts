/**
 * The pace of what a streaming reply changes on the page: its text (components/entries/reply.tsx)
 * and the screen-reader region (announcer.ts) change at most every RENDER_MS, and together, in one
 * task. Any change is a frame of style, layout and paint of the whole page (benchmarks/README.md),
 * so two changes a few milliseconds apart cost two frames where one would do.
 */

/** Paced work runs at most this often; work asked for runs at most this late. */
export const RENDER_MS = 50;

export class Pace {
  constructor(private readonly _ms: number = RENDER_MS) {}

  /** Run `work` now if nothing ran for `ms`, else with all the work asked for meanwhile when
   * `ms` has passed since the last run. Returns what cancels it, or null if it ran now. */
  run(work: () => void): (() => void) | null {
    const now = performance.now();
    if (this._timer === undefined && now - this._last >= this._ms) {
      this._last = now;
      work();
      return null;
    }
    this._waiting.add(work);
    this._timer ??= setTimeout(() => this._tick(), this._last + this._ms - now);
    return () => {
      this._waiting.delete(work);
    };
  }

  private _tick(): void {
    this._timer = undefined;
    if (this._waiting.size === 0) {
      return; // all of it was cancelled
    }
    this._last = performance.now();
    const works = [...this._waiting];
    this._waiting.clear();
    works.forEach(work => work());
  }

  private _last = -Infinity;
  private _timer: ReturnType<typeof setTimeout> | undefined = undefined;
  private readonly _waiting = new Set<() => void>();
}

/** The page's one pace. */
export const replyPace = new Pace();
