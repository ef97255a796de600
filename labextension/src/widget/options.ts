/**
 * What a notebook view of the room shows: the only state a `RoomWidget` syncs with the kernel and
 * the only thing a notebook saves of it (room state never leaves the room).
 */

/** The widget's npm module, as `RoomWidget._model_module` names it. */
export const MODULE_NAME = 'jupyter-copilot-room';
/** This package's version (package.json's, checked by test/widget.spec.ts). */
export const MODULE_VERSION = '0.1.0';

/** Our own mime type beside ipywidgets' view: the view options, saved with the output, so a
 * reopened notebook shows the room live with no kernel and no widget model. */
export const ROOM_MIME_TYPE = 'application/vnd.copilot-room.room+json';
export const WIDGET_VIEW_MIME_TYPE = 'application/vnd.jupyter.widget-view+json';

export const PARTS = ['transcript', 'queue', 'cards', 'prompt'] as const;
export type Part = (typeof PARTS)[number];

export interface IViewOptions {
  readonly parts: readonly Part[];
  /** Pixels; the transcript scrolls inside. */
  readonly height: number;
}

export const DEFAULT_OPTIONS: IViewOptions = { parts: PARTS, height: 480 };
export const MIN_HEIGHT = 160;
export const MAX_HEIGHT = 4000;

/** Options from saved or synced JSON: unknown parts are dropped, a height outside the bounds is
 * clamped, anything unreadable falls back to the defaults (an old or hand-edited notebook). */
export function readOptions(value: unknown): IViewOptions {
  const json = (value && typeof value === 'object' ? value : {}) as Record<string, unknown>;
  const parts = Array.isArray(json.parts)
    ? PARTS.filter(part => (json.parts as unknown[]).includes(part))
    : DEFAULT_OPTIONS.parts;
  const height =
    typeof json.height === 'number' && Number.isFinite(json.height)
      ? Math.min(MAX_HEIGHT, Math.max(MIN_HEIGHT, Math.round(json.height)))
      : DEFAULT_OPTIONS.height;
  return { parts, height };
}
