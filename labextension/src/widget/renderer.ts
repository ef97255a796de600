/**
 * The renderer of a `RoomWidget`'s output (our mime type, beside ipywidgets' view): the room, live,
 * with the options the kernel's widget model has while it exists and the saved ones otherwise.
 *
 * It ranks before ipywidgets' view renderer (-10), whose answer for an output whose model is gone
 * (every reopened notebook until the cell runs again) is "Error displaying widget: model not
 * found". It is safe: the output holds only view options, and the room it shows is the reader's
 * own, through their own login, so an untrusted notebook shows it too.
 */
import { IRenderMime } from '@jupyterlab/rendermime';

import { IRooms } from '../rooms';
import { ILiveOptions, LiveModels } from './live';
import { readOptions, ROOM_MIME_TYPE, WIDGET_VIEW_MIME_TYPE } from './options';
import { RoomOutputWidget } from './view';

export const RENDERER_RANK = -20;

export class RoomOutputRenderer extends RoomOutputWidget implements IRenderMime.IRenderer {
  constructor(rooms: IRooms, live: LiveModels) {
    super(rooms, readOptions(null));
    this._live = live;
    live.added.connect(this._onAdded, this);
  }

  async renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    this._saved = readOptions(model.data[ROOM_MIME_TYPE]);
    const view = model.data[WIDGET_VIEW_MIME_TYPE] as { model_id?: unknown } | undefined;
    this._modelId = typeof view?.model_id === 'string' ? view.model_id : null;
    this._follow(this._modelId ? this._live.get(this._modelId) : undefined);
  }

  dispose(): void {
    this._live.added.disconnect(this._onAdded, this);
    this._follow(undefined);
    super.dispose();
  }

  /** The widget model may come after its output: the kernel's messages are handled in order,
   * but a model is built asynchronously. */
  private _onAdded(_: LiveModels, modelId: string): void {
    if (modelId === this._modelId) {
      this._follow(this._live.get(modelId));
    }
  }

  private _follow(model: ILiveOptions | undefined): void {
    if (this._model !== model) {
      this._model?.changed.disconnect(this._show, this);
      this._model?.closed.disconnect(this._onClosed, this);
      this._model = model ?? null;
      model?.changed.connect(this._show, this);
      model?.closed.connect(this._onClosed, this);
    }
    this._show();
  }

  private _show(): void {
    this.options = this._model?.options ?? this._saved;
  }

  /** The model is gone (`widget.close()`, a kernel restart): the room does not depend on the
   * kernel, so the output stays, live, with its saved options. */
  private _onClosed(): void {
    this._follow(undefined);
  }

  private _live: LiveModels;
  private _saved = readOptions(null);
  private _modelId: string | null = null;
  private _model: ILiveOptions | null = null;
}
