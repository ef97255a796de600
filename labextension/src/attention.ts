/**
 * What waits on the reader, so it reaches them with the panel open or closed: each card whose
 * `answerers` (the server's decision) wait on them, the agent's requests and questions and, for
 * those who admit people, each person at the door. The room switcher counts the same
 * (`GET rooms`' `waiting_on_you`, from the same field).
 * The sidebar tab carries the count (index.ts), each new need is notified once, and the panel
 * brings it into view. Derived from the live document only: nothing is recorded for it.
 */
import { IDisposable } from '@lumino/disposable';
import { ISignal, Signal } from '@lumino/signaling';

import { IRoomModel } from './model';
import { agentName } from './names';
import { waitsOn } from './policy';
import { IApproval, IMe, IParticipant } from './types';

export interface INeed {
  /** Stable for the same need: a card's id, or `door:<username>`. */
  readonly key: string;
  readonly kind: 'card' | 'arrival';
  /** What the panel shows it on: the card's id, or the username at the door. */
  readonly id: string;
  /** One sentence for a notification. */
  readonly text: string;
}

/** A card still waiting on `me`. */
export function needsReader(me: IMe | null, card: IApproval): boolean {
  return card.state === 'pending' && waitsOn(me, card.answerers);
}

/** The needs of `me`, cards first (they run out of time), in the room's order. */
export function needsOf(
  me: IMe | null,
  approvals: readonly IApproval[],
  participants: readonly IParticipant[]
): INeed[] {
  if (!me) {
    return [];
  }
  const cards = approvals
    .filter(card => needsReader(me, card))
    .sort((a, b) => a.deadline - b.deadline)
    .map(card => ({
      key: card.id,
      kind: 'card' as const,
      id: card.id,
      text:
        card.kind === 'question'
          ? `${agentName(card.agent)} asks you: ${card.summary}`
          : `${agentName(card.agent)} waits for your approval: ${card.summary}`
    }));
  const arrivals = participants
    .filter(person => waitsOn(me, person.answerers))
    .map(person => ({
      key: `door:${person.username}`,
      kind: 'arrival' as const,
      id: person.username,
      text: `${person.display_name || person.username} asks to join the Copilot room.`
    }));
  return [...cards, ...arrivals];
}

export class Attention implements IDisposable {
  /**
   * `notify` is called once per need, when it first appears while the reader cannot see the
   * panel (`isShown`); a need that comes back later (a second arrival) is new again.
   */
  constructor(
    private readonly _model: IRoomModel,
    private readonly _options: { isShown: () => boolean; notify: (need: INeed) => void }
  ) {
    _model.changed.connect(this._update, this);
    this._update();
  }

  /** What waits on the reader now. */
  get needs(): readonly INeed[] {
    return this._needs;
  }

  /** The needs changed; the argument holds those that are new. */
  get changed(): ISignal<Attention, readonly INeed[]> {
    return this._changed;
  }

  get isDisposed(): boolean {
    return this._disposed;
  }

  /** The need after `key` (the first one after the last), for a "next card" shortcut. */
  next(key?: string): INeed | undefined {
    const at = this._needs.findIndex(need => need.key === key);
    return this._needs[(at + 1) % Math.max(1, this._needs.length)];
  }

  dispose(): void {
    if (this._disposed) {
      return;
    }
    this._disposed = true;
    this._model.changed.disconnect(this._update, this);
    Signal.clearData(this);
  }

  private _update(): void {
    const needs = needsOf(this._model.me, this._model.approvals, this._model.participants);
    const before = new Set(this._needs.map(need => need.key));
    const fresh = needs.filter(need => !before.has(need.key));
    if (fresh.length === 0 && needs.length === this._needs.length) {
      return;
    }
    this._needs = needs;
    if (!this._options.isShown()) {
      fresh.forEach(need => this._options.notify(need));
    }
    this._changed.emit(fresh);
  }

  private _needs: INeed[] = [];
  private _changed = new Signal<Attention, readonly INeed[]>(this);
  private _disposed = false;
}
