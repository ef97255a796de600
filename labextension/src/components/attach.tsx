/** "Attach": the prompt box's one entry point for what goes with a prompt, a JupyterLab (Lumino)
 * menu so the toolbar stays one row: what the reader is looking at (context chips, ../chips.ts),
 * "Image…" (pick images) and "Repository file…" (a path) (./attachments.tsx). Pasting or dropping
 * images into the box still works without it. */
import { InputDialog } from '@jupyterlab/apputils';
import { caretDownEmptyIcon, fileIcon, imageIcon } from '@jupyterlab/ui-components';
import { CommandRegistry } from '@lumino/commands';
import { Menu } from '@lumino/widgets';
import React, { useRef, useState } from 'react';

import { IMAGE_TYPES } from '../attachments';
import { ContextTray, IChip } from '../chips';
import { IDraftAttachments } from './attachments';

/** The button and its menu, rebuilt on each opening (the offers follow what is open now). */
export function AttachMenuButton(props: {
  tray: ContextTray;
  draft: IDraftAttachments;
  onAttached: () => void;
}): JSX.Element {
  const { tray, draft, onAttached } = props;
  const input = useRef<HTMLInputElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const [open, setOpen] = useState(false);

  const pickPath = async () => {
    const result = await InputDialog.getText({
      title: 'Attach a repository file',
      label: 'Path inside the repository (as the file browser shows it)',
      placeholder: 'src/module.py',
      okLabel: 'Attach'
    });
    if (result.button.accept && result.value) {
      draft.addPath(result.value);
    }
  };

  const show = (byKeyboard: boolean) => {
    const anchor = button.current;
    if (!anchor) {
      return;
    }
    const menu = attachMenu(tray, {
      offer: chip => {
        tray.add(chip);
        onAttached();
      },
      image: () => input.current?.click(),
      file: () => void pickPath()
    });
    menu.aboutToClose.connect(() => {
      setOpen(false);
      // Escape leaves focus nowhere: give it back to the button.
      requestAnimationFrame(() => {
        if (document.activeElement === document.body) {
          anchor.focus();
        }
        menu.dispose();
      });
    });
    const at = anchor.getBoundingClientRect();
    menu.open(at.left, at.bottom);
    // The box sits at the bottom of the sidebar: open upwards rather than over the button.
    const shown = menu.node.getBoundingClientRect();
    if (shown.top < at.bottom && shown.bottom > at.top) {
      menu.node.style.transform = `translate(${shown.left}px, ${Math.max(0, at.top - shown.height)}px)`;
    }
    if (byKeyboard) {
      menu.activateNextItem();
    }
    setOpen(true);
  };

  return (
    <span className="jp-CopilotRoom-attach">
      <input
        ref={input}
        type="file"
        accept={IMAGE_TYPES.join(',')}
        multiple
        hidden
        aria-label="Images to attach"
        onChange={event => {
          draft.addImages(Array.from(event.target.files ?? []));
          event.target.value = '';
        }}
      />
      <button
        ref={button}
        type="button"
        className="jp-mod-styled jp-CopilotRoom-attachButton"
        aria-label="Attach…"
        aria-haspopup="menu"
        aria-expanded={open}
        title="Attach to your next prompt: what you are looking at, images, a repository file"
        // A click from the keyboard (Enter, Space) has no pointer position: detail 0.
        onClick={event => show(event.detail === 0)}
      >
        <span className="jp-CopilotRoom-attachLabel">Attach</span>
        <caretDownEmptyIcon.react tag="span" className="jp-CopilotRoom-attachCaret" />
      </button>
    </span>
  );
}

/** The menu's items, each a command of a registry of its own (the app's commands stay clean). */
function attachMenu(
  tray: ContextTray,
  on: { offer: (chip: IChip) => void; image: () => void; file: () => void }
): Menu {
  const commands = new CommandRegistry();
  const menu = new Menu({ commands });
  menu.addClass('jp-CopilotRoom-attachMenu');
  menu.contentNode.setAttribute('aria-label', 'Attach to your next prompt');
  const offers = tray.offers();
  offers.forEach((offer, n) => {
    commands.addCommand(`offer-${n}`, {
      label: offer.label,
      execute: () => on.offer(offer.chip)
    });
    menu.addItem({ command: `offer-${n}` });
  });
  if (!offers.length) {
    commands.addCommand('nothing-open', {
      label: 'Open a notebook or a file to attach it',
      isEnabled: () => false,
      execute: () => undefined
    });
    menu.addItem({ command: 'nothing-open' });
  }
  menu.addItem({ type: 'separator' });
  commands.addCommand('image', {
    label: 'Image…',
    caption: 'Attach images (PNG, JPEG, GIF, WebP; or paste or drop them into the box)',
    icon: imageIcon,
    execute: on.image
  });
  commands.addCommand('file', {
    label: 'Repository file…',
    caption: 'Attach a file of the repository by its path',
    icon: fileIcon,
    execute: on.file
  });
  menu.addItem({ command: 'image' });
  menu.addItem({ command: 'file' });
  return menu;
}
