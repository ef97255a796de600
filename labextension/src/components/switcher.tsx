/** The room switcher at the top of the panel: the room the page is in and who is in it, a dot
 * when something waits on the reader in another room, and a JupyterLab (Lumino) menu of the
 * server's rooms (keyboard too), with "New room…" for those who may create one, a link to the
 * room, and "Link a Slack Account…" when the server runs a chat bridge. */
import {
  addIcon,
  caretDownEmptyIcon,
  linkIcon,
  MenuSvg,
  userIcon
} from '@jupyterlab/ui-components';
import { CommandRegistry } from '@lumino/commands';
import { ElementARIAAttrs, h, VirtualElement } from '@lumino/virtualdom';
import { Menu } from '@lumino/widgets';
import React, { useEffect, useRef, useState } from 'react';

import { IRoomEntry } from '../api';
import { linkChannelLabel, linkChatLabel, serviceName, unlinkChannelLabel } from '../chats';
import { isAdmitted, isPresent, mayEditSettings, roleLabel } from '../policy';
import { IRooms, peopleLabel, roomDetails, waitingElsewhere, waitingLabel } from '../rooms';
import { useSignal } from './hooks';
import { linkChannel, unlinkChannel } from './linkchannel';

export function RoomSwitcher(props: {
  rooms: IRooms;
  /** "New room…" (shown when the reader may create rooms). */
  onNewRoom?: () => void;
  /** "Copy link to this room". */
  onCopyLink?: () => void;
  /** "Link a <Service> Account…", one per chat service the room offers (`GET room`'s `chats`). */
  onLinkChat?: (service: string) => void;
  /** Opens the menu when this changes (the "switch room" command). */
  openRequest?: number;
}): JSX.Element {
  const { rooms } = props;
  useSignal(rooms.listChanged);
  useSignal(rooms.currentChanged);
  useSignal(rooms.current.model.changed);
  const button = useRef<HTMLButtonElement>(null);
  const [open, setOpen] = useState(false);
  const name = rooms.current.name;
  const entry = rooms.list.find(room => room.name === name);
  const model = rooms.current.model;
  // Who is in: the live document's people while the reader is inside, else the list's (which
  // names nobody to someone at the door).
  const inside = !!model.me && isAdmitted(model.me);
  const people = inside ? model.participants.filter(isPresent).length : entry?.people.length;
  const waiting = waitingElsewhere(rooms.list, name);
  const elsewhere = `${waitingLabel(waiting.count)} in ${waiting.rooms.length === 1 ? waiting.rooms[0] : 'other rooms'}`;

  const show = (byKeyboard: boolean) => {
    const anchor = button.current;
    if (!anchor) {
      return;
    }
    void rooms.refresh();
    const menu = roomsMenu(rooms, people, props.onNewRoom, props.onCopyLink, props.onLinkChat);
    menu.aboutToClose.connect(() => {
      setOpen(false);
      requestAnimationFrame(() => {
        if (document.activeElement === document.body) {
          anchor.focus(); // Escape leaves the focus nowhere: give it back to the button
        }
        menu.dispose();
      });
    });
    const at = anchor.getBoundingClientRect();
    menu.open(at.left, at.bottom);
    if (byKeyboard) {
      menu.activateNextItem();
    }
    setOpen(true);
  };

  // A request made before this switcher was drawn (another room's) is not for it.
  const seen = useRef(props.openRequest);
  useEffect(() => {
    if (props.openRequest !== seen.current) {
      seen.current = props.openRequest;
      button.current?.focus();
      show(true);
    }
  });

  return (
    <button
      ref={button}
      type="button"
      className="jp-CopilotRoom-switcher"
      aria-haspopup="menu"
      aria-expanded={open}
      title={`The Copilot room ${name}: switch rooms`}
      // A click from the keyboard (Enter, Space) has no pointer position: detail 0.
      onClick={event => show(event.detail === 0)}
    >
      <span className="jp-CopilotRoom-switcherName">{name}</span>
      {people !== undefined && (inside || people > 0) && (
        <span className="jp-CopilotRoom-switcherPeople">{peopleLabel(people)}</span>
      )}
      {waiting.count > 0 && (
        <span
          className="jp-CopilotRoom-waitingDot"
          role="img"
          aria-label={elsewhere}
          title={elsewhere}
        />
      )}
      <caretDownEmptyIcon.react tag="span" className="jp-CopilotRoom-switcherCaret" />
    </button>
  );
}

/** Rooms as two lines: the name (with the dot when something waits there), then its details;
 * JupyterLab's icons (the check on the room the page is in). */
class RoomsRenderer extends MenuSvg.Renderer {
  /** One room of several is the current one: radio items, checked for it. */
  createItemARIA(data: Menu.IRenderData): ElementARIAAttrs {
    if (!data.item.command.startsWith('room:')) {
      return super.createItemARIA(data);
    }
    return { role: 'menuitemradio', 'aria-checked': data.item.isToggled ? 'true' : 'false' };
  }

  renderLabel(data: Menu.IRenderData): VirtualElement {
    const details = data.item.caption;
    if (!data.item.command.startsWith('room:')) {
      return super.renderLabel(data);
    }
    return h.div(
      { className: 'lm-Menu-itemLabel' },
      h.div(
        { className: 'jp-CopilotRoom-roomItem' },
        h.div({ className: 'jp-CopilotRoom-roomItemName' }, data.item.label),
        h.div({ className: 'jp-CopilotRoom-roomItemDetails' }, details)
      )
    );
  }
}

const renderer = new RoomsRenderer();

/** A host's "Link a Slack Channel…" (or "Change…") and "Unlink the Slack Channel (C0123)", one
 * pair per chat service the server bridges (`GET room`'s `channels`). */
function addChannelItems(menu: Menu, commands: CommandRegistry, rooms: IRooms): void {
  const room = rooms.current;
  const services = mayEditSettings(room.model.me) ? Object.keys(room.model.channels) : [];
  if (services.length) {
    menu.addItem({ type: 'separator' });
  }
  for (const service of services) {
    const channel = room.model.channels[service] ?? null;
    commands.addCommand(`link-channel:${service}`, {
      label: linkChannelLabel(service, channel),
      caption: `The room's turns go to that ${serviceName(service)} channel, and mentions there are prompts`,
      icon: linkIcon,
      execute: () => void linkChannel(room, service)
    });
    menu.addItem({ command: `link-channel:${service}` });
    if (channel) {
      commands.addCommand(`unlink-channel:${service}`, {
        label: unlinkChannelLabel(service, channel),
        execute: () => void unlinkChannel(room, service)
      });
      menu.addItem({ command: `unlink-channel:${service}` });
    }
  }
}

/** The menu's items, each a command of a registry of its own (the app's commands stay clean). */
function roomsMenu(
  rooms: IRooms,
  peopleHere: number | undefined,
  onNewRoom?: () => void,
  onCopyLink?: () => void,
  onLinkChat?: (service: string) => void
): Menu {
  const commands = new CommandRegistry();
  const menu = new Menu({ commands, renderer });
  menu.addClass('jp-CopilotRoom-roomsMenu');
  menu.contentNode.setAttribute('aria-label', 'Copilot rooms');
  const current = rooms.current.name;
  const listed: IRoomEntry[] = rooms.list.length
    ? [...rooms.list]
    : [
        {
          name: current,
          repository: '',
          state: rooms.current.model.meta.state ?? '',
          people: [],
          role: rooms.current.model.me ? roleLabel(rooms.current.model.me) : '',
          waiting_on_you: 0,
          created_by: ''
        }
      ];
  for (const room of listed) {
    const id = `room:${room.name}`;
    commands.addCommand(id, {
      label: room.name,
      caption: roomDetails(room, room.name === current ? peopleHere : undefined),
      className: room.name !== current && room.waiting_on_you > 0 ? 'jp-mod-waiting' : '',
      isToggled: () => room.name === current,
      execute: () => rooms.switchTo(room.name)
    });
    menu.addItem({ command: id });
  }
  if ((rooms.canCreate && onNewRoom) || onCopyLink) {
    menu.addItem({ type: 'separator' });
  }
  if (rooms.canCreate && onNewRoom) {
    commands.addCommand('new', { label: 'New room…', icon: addIcon, execute: onNewRoom });
    menu.addItem({ command: 'new' });
  }
  if (onCopyLink) {
    commands.addCommand('link', {
      label: `Copy link to ${current}`,
      icon: linkIcon,
      execute: onCopyLink
    });
    menu.addItem({ command: 'link' });
  }
  const model = rooms.current.model;
  const chats = onLinkChat && isAdmitted(model.me) ? model.chats : [];
  if (chats.length) {
    menu.addItem({ type: 'separator' });
  }
  for (const service of chats) {
    const id = `link-chat:${service}`;
    commands.addCommand(id, {
      label: linkChatLabel(service),
      caption: `A one-time code to send to the room's bot in ${serviceName(service)}`,
      icon: userIcon,
      execute: () => onLinkChat?.(service)
    });
    menu.addItem({ command: id });
  }
  addChannelItems(menu, commands, rooms);
  return menu;
}
