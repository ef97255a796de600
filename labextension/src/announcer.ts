/**
 * What a screen reader says about the agent's replies: each paragraph once it is finished (the
 * next one began, or the reply ended), never each streamed delta, and no reply that had ended
 * before the reader saw it (a reload does not read the room's history aloud). Paragraphs are
 * spoken a batch at a time, at the reply's own pace (pace.ts): a reply may finish a paragraph
 * every delta, and each change of the live region is a frame of the whole page.
 */
import { IDisposable } from '@lumino/disposable';

import { IEntrySource, IRoomModel } from './model';
import { Pace, replyPace } from './pace';

/** The paragraphs of `body` ready to be spoken after offset `from`: those followed by a blank
 * line, and all the rest once the reply is `finished`. `upTo` is where the next call starts. */
export function finishedParagraphs(
  body: string,
  from: number,
  finished: boolean
): { parts: string[]; upTo: number } {
  const blank = body.lastIndexOf('\n\n');
  const end = finished ? body.length : blank < 0 ? from : blank + 2;
  if (end <= from) {
    return { parts: [], upTo: from };
  }
  const parts = body
    .slice(from, end)
    .split(/\n\s*\n/)
    .map(part => part.trim())
    .filter(part => part.length > 0);
  return { parts, upTo: end };
}

export class Announcer implements IDisposable {
  /** `speak` is called with the finished paragraphs of a reply that streams from now on, in
   * order, each once, those that finished since the last call together, at `pace`. */
  constructor(
    private readonly _model: IRoomModel,
    private readonly _speak: (paragraphs: string[]) => void,
    private readonly _pace: Pace = replyPace
  ) {
    _model.entriesChanged.connect(this._onEntries, this);
    this._onEntries();
  }

  get isDisposed(): boolean {
    return this._disposed;
  }

  dispose(): void {
    if (this._disposed) {
      return;
    }
    this._disposed = true;
    this._model.entriesChanged.disconnect(this._onEntries, this);
    this._stop?.();
    this._cancel?.();
  }

  /** Listen to the newest reply still streaming (the room streams one at a time). */
  private _onEntries(): void {
    const latest = [...this._model.entries].reverse().find(s => s.read().kind === 'assistant');
    if (!latest || latest === this._watched) {
      return;
    }
    this._stop?.();
    this._watched = latest;
    if (!this._spoken.has(latest.id)) {
      // A reply that had ended before this reader saw it is history: not read aloud.
      const entry = latest.read();
      const streaming = entry.kind === 'assistant' && entry.state === 'streaming';
      this._spoken.set(latest.id, streaming ? 0 : entry.body.length);
    }
    this._stop = latest.observe(() => this._check(latest));
    this._check(latest);
  }

  private _check(source: IEntrySource): void {
    const entry = source.read();
    if (entry.kind !== 'assistant') {
      return;
    }
    const { parts, upTo } = finishedParagraphs(
      entry.body,
      this._spoken.get(source.id) ?? 0,
      entry.state !== 'streaming'
    );
    this._spoken.set(source.id, upTo);
    this._waiting.push(...parts);
    if (parts.length > 0 && !this._cancel) {
      this._cancel = this._pace.run(() => {
        this._cancel = null;
        this._speak(this._waiting.splice(0));
      });
    }
  }

  private _spoken = new Map<string, number>();
  private _waiting: string[] = [];
  private _cancel: (() => void) | null = null;
  private _watched: IEntrySource | null = null;
  private _stop: (() => void) | null = null;
  private _disposed = false;
}
