/** The sidebar widget that hosts the room view: the room switcher, then the page's current
 * room, shown afresh (its own React tree) after each switch. */
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { ReactWidget } from '@jupyterlab/ui-components';
import { Message } from '@lumino/messaging';
import React from 'react';

import { INeed } from './attention';
import { Room } from './components/room';
import { RoomSwitcher } from './components/switcher';
import { IThreadActions, ThreadActions } from './components/threads';
import { IRooms } from './rooms';
import { roomRendermime } from './sanitize';

export class RoomPanel extends ReactWidget {
  constructor(options: {
    rooms: IRooms;
    rendermime: IRenderMimeRegistry;
    /** "Export…" (the `copilot-room:export` command). */
    onExport?: () => void;
    /** "New room…" in the switcher. */
    onNewRoom?: () => void;
    /** "Copy link to <room>" in the switcher. */
    onCopyLink?: () => void;
    /** "Link a Slack Account…" in the switcher (the `copilot-room:link-chat-account` command). */
    onLinkChat?: (service: string) => void;
    /** Forking and opening side threads (the page's commands). */
    threads?: IThreadActions;
  }) {
    super();
    this.rooms = options.rooms;
    this._options = options;
    // Agent output renders only through the agent-output sanitizer (sanitize.ts).
    this._rendermime = roomRendermime(options.rendermime);
    this.addClass('jp-CopilotRoom');
    this.rooms.currentChanged.connect(this._onRoomSwitched, this);
  }

  readonly rooms: IRooms;

  /** Open the room switcher's menu, the keyboard on its first item. */
  openSwitcher(): void {
    this._openRequest += 1;
    this.update();
  }

  /** Show the card with a one-time code that links the reader's `service` account (a fresh code
   * each time), bring it into view and move the focus to it. */
  linkChat(service: string): void {
    this._linkChat = {
      room: this.rooms.current.name,
      service,
      request: (this._linkChat?.request ?? 0) + 1
    };
    this.update();
    this._showLinkCard();
  }

  focusPrompt(): void {
    this._input.current?.focus();
  }

  /** Scroll the transcript to an entry (a prompt, by its id) and flash it; a room just switched
   * to draws its entries once its document arrived, so it is looked for over a few seconds. */
  showEntry(entryId: string, frames = 300): void {
    const entry = this.node.querySelector<HTMLElement>(`[data-entry-id="${CSS.escape(entryId)}"]`);
    if (!entry && frames > 0) {
      requestAnimationFrame(() => this.showEntry(entryId, frames - 1));
    } else if (entry) {
      entry.scrollIntoView({ block: 'center' });
      entry.classList.add('jp-mod-flash');
      window.setTimeout(() => entry.classList.remove('jp-mod-flash'), 1500);
    }
  }

  /** Bring what waits on the reader into view: their card, or (for hosts) the person at the
   * door. Scrolls only the panel's own scrolling boxes; moves the focus there only when the
   * reader asked (`focus`), never from under someone typing elsewhere. */
  showNeed(need: INeed, focus: boolean, frames = 30): void {
    const attribute = need.kind === 'card' ? 'data-card-id' : 'data-admission';
    const target = this.node.querySelector<HTMLElement>(`[${attribute}="${CSS.escape(need.id)}"]`);
    if (!target && frames > 0) {
      // The room may not have drawn it yet (React renders after the model's signal).
      requestAnimationFrame(() => this.showNeed(need, focus, frames - 1));
    } else if (target) {
      reveal(target, this.node);
      if (focus) {
        target.focus({ preventScroll: true });
      }
    }
  }

  dispose(): void {
    this.rooms.currentChanged.disconnect(this._onRoomSwitched, this);
    this.rooms.setPolling(false);
    super.dispose();
  }

  /** The list of rooms is asked for while the panel is in sight. */
  protected onAfterShow(msg: Message): void {
    super.onAfterShow(msg);
    this.rooms.setPolling(true);
  }

  protected onAfterHide(msg: Message): void {
    super.onAfterHide(msg);
    this.rooms.setPolling(false);
  }

  private _onRoomSwitched(): void {
    this._linkChat = null; // a code is asked for in a room, and goes with it
    this.update();
  }

  private _showLinkCard(frames = 30): void {
    // This request's card: the one it replaces may still be drawn.
    const request = String(this._linkChat?.request ?? '');
    const card = this.node.querySelector<HTMLElement>(
      `.jp-CopilotRoom-linkChat[data-request="${CSS.escape(request)}"]`
    );
    if (!card && frames > 0) {
      requestAnimationFrame(() => this._showLinkCard(frames - 1));
    } else if (card) {
      reveal(card, this.node);
      card.focus({ preventScroll: true });
    }
  }

  protected render(): JSX.Element {
    const room = this.rooms.current;
    const linking = this._linkChat?.room === room.name ? this._linkChat : null;
    return (
      <ThreadActions.Provider value={this._options.threads ?? null}>
        <Room
          key={room.name}
          model={room.model}
          client={room.client}
          rendermime={this._rendermime}
          inputRef={this._input}
          history={room.history}
          draft={room.draft}
          onExport={this._options.onExport}
          linkChat={
            linking && {
              service: linking.service,
              request: linking.request,
              onClose: () => {
                this._linkChat = null;
                this.update();
              }
            }
          }
          switcher={
            <RoomSwitcher
              rooms={this.rooms}
              onNewRoom={this._options.onNewRoom}
              onCopyLink={this._options.onCopyLink}
              onLinkChat={this._options.onLinkChat}
              openRequest={this._openRequest}
            />
          }
        />
      </ThreadActions.Provider>
    );
  }

  private _options: {
    onExport?: () => void;
    onNewRoom?: () => void;
    onCopyLink?: () => void;
    onLinkChat?: (service: string) => void;
    threads?: IThreadActions;
  };
  private _linkChat: { room: string; service: string; request: number } | null = null;
  private _rendermime: IRenderMimeRegistry;
  private _input = React.createRef<HTMLTextAreaElement>();
  private _openRequest = 0;
}

/** Scroll each scrolling box between `element` and `top` just enough to show `element`. */
function reveal(element: HTMLElement, top: HTMLElement): void {
  for (let box = element.parentElement; box && top.contains(box); box = box.parentElement) {
    if (box.scrollHeight > box.clientHeight && getComputedStyle(box).overflowY !== 'visible') {
      const inner = element.getBoundingClientRect();
      const outer = box.getBoundingClientRect();
      if (inner.top < outer.top) {
        box.scrollTop -= outer.top - inner.top;
      } else if (inner.bottom > outer.bottom) {
        box.scrollTop += Math.min(inner.bottom - outer.bottom, inner.top - outer.top);
      }
    }
  }
}
