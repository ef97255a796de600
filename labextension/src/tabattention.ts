/**
 * What waits on the reader in the page's current room, on the panel's sidebar tab: a count on
 * the tab, a notification while the panel is out of sight, into view when it is shown
 * (./attention.ts), and the next one on demand (the "go to what waits on you" command). It
 * follows the current room as the reader switches.
 */
import { Notification } from '@jupyterlab/apputils';

import { Attention, INeed } from './attention';
import { RoomPanel } from './panel';
import { IRoom } from './room';
import { IRooms } from './rooms';

/** Watch the current room for the panel's tab; the answer shows the next need after the last
 * one shown (or just opens the panel when none waits). */
export function followAttention(rooms: IRooms, panel: RoomPanel, open: () => void): () => void {
  let attention = watchAttention(rooms.current);
  let lastShown: string | undefined;
  const showNeed = (need: INeed) => {
    open();
    lastShown = need.key;
    panel.showNeed(need, true);
  };
  function watchAttention(room: IRoom): Attention {
    const watched = new Attention(room.model, {
      isShown: () => panel.isVisible && !document.hidden,
      notify: need => {
        const notify = need.kind === 'card' ? Notification.warning : Notification.info;
        notify(need.text, {
          autoClose: 10000,
          actions: [{ label: 'Show', callback: () => showNeed(need) }]
        });
      }
    });
    const mark = (fresh: readonly INeed[]) => {
      const count = watched.needs.length;
      panel.title.className = count ? 'jp-CopilotRoom-tab jp-mod-attention' : 'jp-CopilotRoom-tab';
      // The shell keeps the widget's id in the dataset (its tab's clicks need it): keep the rest.
      const dataset = { ...panel.title.dataset };
      delete dataset['copilot-attention'];
      panel.title.dataset = count ? { ...dataset, 'copilot-attention': String(count) } : dataset;
      panel.title.caption = count
        ? `Copilot room: ${count === 1 ? 'something waits' : `${count} things wait`} on you`
        : 'Copilot room';
      if (fresh.length && panel.isVisible) {
        panel.showNeed(fresh[0], false);
      }
    };
    watched.changed.connect((_, fresh) => mark(fresh));
    mark([]);
    return watched;
  }
  rooms.currentChanged.connect((_, room) => {
    attention.dispose();
    attention = watchAttention(room);
    lastShown = undefined;
  });
  return () => {
    const need = attention.next(lastShown);
    if (need) {
      showNeed(need);
    } else {
      open();
    }
  };
}
