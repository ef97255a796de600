/**
 * The panel's commands (open, switch room, new room, export, link a chat account, focus the
 * prompt, abort, go to what waits on you), each enabled as `me.can` allows (./policy.ts). Apart
 * from the plugin's wiring (./index.ts), which makes the panel and hands them in.
 */
import { JupyterFrontEnd } from '@jupyterlab/application';
import { Notification } from '@jupyterlab/apputils';
import { IDocumentManager } from '@jupyterlab/docmanager';
import { LabIcon } from '@jupyterlab/ui-components';
import { ReadonlyPartialJSONObject } from '@lumino/coreutils';

import { refusalMessage } from './api';
import { linkChatLabel, serviceName } from './chats';
import { exportTranscript } from './components/export';
import { newRoomDialog } from './components/newroom';
import { RoomPanel } from './panel';
import { isAdmitted, mayAbort, mayExport, maySubmit } from './policy';
import { IRooms } from './rooms';

export namespace CommandIDs {
  export const open = 'copilot-room:open';
  export const focusPrompt = 'copilot-room:focus-prompt';
  export const abort = 'copilot-room:abort';
  export const nextCard = 'copilot-room:next-card';
  export const exportTranscript = 'copilot-room:export';
  export const switchRoom = 'copilot-room:switch-room';
  export const newRoom = 'copilot-room:new-room';
  export const linkChatAccount = 'copilot-room:link-chat-account';
}

/** What the commands act on: the rooms, the panel and how to bring it into view, and what waits
 * on the reader next (./tabattention.ts). */
export interface ICommandTargets {
  rooms: IRooms;
  panel: RoomPanel;
  icon: LabIcon;
  open: () => void;
  showNext: () => void;
  documents: IDocumentManager | null;
}

export function addCommands(app: JupyterFrontEnd, targets: ICommandTargets): void {
  const { rooms, panel, open } = targets;
  app.commands.addCommand(CommandIDs.open, {
    label: 'Open the Copilot Room',
    caption: 'Show the shared Copilot room in the sidebar',
    icon: targets.icon,
    execute: open
  });
  app.commands.addCommand(CommandIDs.switchRoom, {
    label: 'Switch Copilot Room…',
    caption: 'Go to another Copilot room on this server',
    execute: () => {
      open();
      panel.openSwitcher();
    }
  });
  app.commands.addCommand(CommandIDs.newRoom, {
    label: 'New Copilot Room…',
    caption: 'A room of its own for a folder of the server (hosts)',
    isEnabled: () => rooms.canCreate,
    execute: async () => {
      if (await newRoomDialog(rooms, targets.documents)) {
        open();
      }
    }
  });
  app.commands.addCommand(CommandIDs.exportTranscript, {
    label: 'Export the Copilot Room Transcript…',
    caption: 'Download the transcript, or open it, as a notebook, Markdown or JSONL',
    isEnabled: () => mayExport(rooms.current.model.me),
    execute: () => exportTranscript(app, rooms.current.client)
  });
  /** The chat service the command links an account of: the one it is given, else the first
   * the room offers (`GET room`'s `chats`), none for someone who is not admitted. */
  const chatOf = (args: ReadonlyPartialJSONObject): string | null => {
    const { model } = rooms.current;
    const chats = isAdmitted(model.me) ? model.chats : [];
    const asked = typeof args.service === 'string' ? args.service : null;
    return asked ? (chats.includes(asked) ? asked : null) : (chats[0] ?? null);
  };
  app.commands.addCommand(CommandIDs.linkChatAccount, {
    label: args => linkChatLabel(chatOf(args) ?? (args.service as string | undefined)),
    caption: args => {
      const chat = chatOf(args);
      return chat
        ? `A one-time code to send to the room's bot in ${serviceName(chat)}: you then act there as yourself`
        : 'The room offers no chat account to link';
    },
    describedBy: {
      args: {
        type: 'object',
        properties: { service: { type: 'string', description: 'The chat service: slack' } }
      }
    },
    isEnabled: args => chatOf(args) !== null,
    isVisible: args => chatOf(args) !== null,
    execute: args => {
      const service = chatOf(args);
      if (service) {
        open();
        panel.linkChat(service);
      }
    }
  });
  app.commands.addCommand(CommandIDs.focusPrompt, {
    label: 'Focus the Copilot Room Prompt',
    isEnabled: () => maySubmit(rooms.current.model.me),
    execute: () => {
      open();
      panel.focusPrompt();
    }
  });
  app.commands.addCommand(CommandIDs.abort, {
    label: 'Abort the Running Copilot Turn',
    isEnabled: () => {
      const { model } = rooms.current;
      return mayAbort(model.me) && !!model.meta.turn_prompt;
    },
    // A refusal (already stopping, nothing running any more) is said where the shortcut was
    // pressed: in a notification, as there is no button to show it next to.
    execute: () =>
      rooms.current.client.abort().catch(error => {
        Notification.error(refusalMessage(error), { autoClose: 5000 });
      })
  });
  app.commands.addCommand(CommandIDs.nextCard, {
    label: 'Go to What Waits on You in the Copilot Room',
    caption: 'Your approval or question, or someone at the door',
    execute: targets.showNext
  });
  // What is enabled follows the current room's state and the list of rooms.
  const notify = () => app.commands.notifyCommandChanged();
  rooms.current.model.changed.connect(notify);
  rooms.currentChanged.connect((_, room) => {
    room.model.changed.connect(notify);
    notify();
  });
  rooms.listChanged.connect(notify);
}
