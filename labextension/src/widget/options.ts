/**
 * What a notebook view of the room shows: the only state a `RoomWidget` syncs with the kernel and
 * the only thing a notebook saves of it (room state never leaves the room). The names and bounds
 * are `widget.py`'s, generated.
 */
import {
  ROOM_MIME_TYPE,
  WIDGET_DEFAULT_HEIGHT,
  WIDGET_MAX_HEIGHT,
  WIDGET_MIN_HEIGHT,
  WIDGET_MODULE,
  WIDGET_PARTS,
  WidgetPart
} from '../generated/declarations';

export { ROOM_MIME_TYPE };

/** The widget's npm module, as `RoomWidget._model_module` names it. */
export const MODULE_NAME = WIDGET_MODULE;
/** This package's version (package.json's, checked by test/widget.spec.ts). */
export const MODULE_VERSION = '0.5.0';

/** ipywidgets' view, beside which `ROOM_MIME_TYPE` saves the view options with the output, so a
 * reopened notebook shows the room live with no kernel and no widget model. */
export const WIDGET_VIEW_MIME_TYPE = 'application/vnd.jupyter.widget-view+json';

export const PARTS = WIDGET_PARTS;
export type Part = WidgetPart;

export interface IViewOptions {
  readonly parts: readonly Part[];
  /** Pixels; the transcript scrolls inside. */
  readonly height: number;
}

export const DEFAULT_OPTIONS: IViewOptions = { parts: PARTS, height: WIDGET_DEFAULT_HEIGHT };
export const MIN_HEIGHT = WIDGET_MIN_HEIGHT;
export const MAX_HEIGHT = WIDGET_MAX_HEIGHT;

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
