/**
 * Context chips: what the reader points at (the active notebook, its selected cells, the open file
 * or its selection, a cell's output), attached to their next prompt. The server checks each chip
 * and reads what it names when the turn starts (`jupyter_copilot_room/notebooks/context.py`); an
 * output is captured here, as the reader saw it. The tray holds the chips of the prompt being
 * written: the prompt box shows them, `context.ts` fills it from JupyterLab (the "Attach" offers
 * and an output's "Send to the Copilot room").
 */
import { ISignal, Signal } from '@lumino/signaling';

import { MAX_CHIPS } from './generated/declarations';

export type ChipKind = 'notebook' | 'cells' | 'file' | 'selection' | 'output';

/** A chip as the prompt sends it (`events.Chip`). */
export interface IChip {
  kind: ChipKind;
  path: string;
  cell_ids?: string[];
  /** 1-based, inclusive (a selection). */
  start_line?: number;
  end_line?: number;
  mime?: string;
  /** An output's text. */
  text?: string;
  /** An output's image, base64. */
  data?: string;
}

/** A chip as the transcript shows it: an output's text and image only by size. */
export interface IShownChip extends Omit<IChip, 'text' | 'data'> {
  bytes?: number;
  chars?: number;
}

/** The server takes at most this many chips (`events`, generated with the other limits). */
export { MAX_CHIPS };

/** Something the reader could attach now, as the "Attach" menu lists it. */
export interface IOffer {
  label: string;
  chip: IChip;
}

function basename(path: string): string {
  return path.split('/').pop() || path;
}

/** A chip in a few words (the path's last part; `chipTitle` has the whole path). */
export function chipLabel(chip: IShownChip): string {
  const name = basename(chip.path);
  switch (chip.kind) {
    case 'notebook':
      return `Notebook ${name}`;
    case 'cells': {
      const count = chip.cell_ids?.length ?? 0;
      return `${count} ${count === 1 ? 'cell' : 'cells'} of ${name}`;
    }
    case 'file':
      return `File ${name}`;
    case 'selection':
      return chip.start_line === chip.end_line
        ? `Line ${chip.start_line} of ${name}`
        : `Lines ${chip.start_line}–${chip.end_line} of ${name}`;
    case 'output':
      return chip.mime && chip.mime !== 'text/plain'
        ? `Output (image) of ${name}`
        : `Output (text) of ${name}`;
  }
  return name;
}

/** The tooltip: the whole path, the cells by id, an output's size. */
export function chipTitle(chip: IShownChip | IChip): string {
  const parts = [chip.path];
  if (chip.cell_ids?.length) {
    parts.push(`cell ${chip.cell_ids.join(', ')}`);
  }
  const bytes =
    'data' in chip && chip.data !== undefined
      ? Math.floor((chip.data.length * 3) / 4)
      : (chip as IShownChip).bytes;
  if (bytes !== undefined) {
    parts.push(`${chip.mime}, ${bytes.toLocaleString('en')} bytes`);
  }
  const chars =
    'text' in chip && chip.text !== undefined ? chip.text.length : (chip as IShownChip).chars;
  if (chars !== undefined) {
    parts.push(`${chars.toLocaleString('en')} characters`);
  }
  return parts.join(' · ');
}

function sameChip(a: IChip, b: IChip): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The chips of the prompt being written, and where the offers come from. */
export class ContextTray {
  get chips(): readonly IChip[] {
    return this._chips;
  }

  get changed(): ISignal<this, void> {
    return this._changed;
  }

  /** What JupyterLab offers to attach now (set by `context.ts`; nothing without it). */
  offers: () => IOffer[] = () => [];

  /** Adds a chip (once); false when the tray is full. */
  add(chip: IChip): boolean {
    if (this._chips.some(c => sameChip(c, chip))) {
      return true;
    }
    if (this._chips.length >= MAX_CHIPS) {
      return false;
    }
    this._chips = [...this._chips, chip];
    this._changed.emit();
    return true;
  }

  remove(index: number): void {
    this._chips = this._chips.filter((_, n) => n !== index);
    this._changed.emit();
  }

  clear(): void {
    if (this._chips.length) {
      this._chips = [];
      this._changed.emit();
    }
  }

  private _chips: IChip[] = [];
  private _changed = new Signal<this, void>(this);
}

/** The page's one tray: one reader, one prompt being written. */
export const contextTray = new ContextTray();
