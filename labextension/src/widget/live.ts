/**
 * The `RoomWidget` models the page's widget managers hold, by model id. A notebook output names
 * its widget model; while the kernel keeps that model, the output follows the options the kernel
 * sets (`widget.height = 600`), and when the model is gone (a reopened notebook, a new kernel) it
 * shows the options saved with the output. Kept apart from ipywidgets' code, which loads only if
 * ipywidgets' frontend is there.
 */
import { ISignal, Signal } from '@lumino/signaling';

import { IViewOptions } from './options';

export interface ILiveOptions {
  readonly options: IViewOptions;
  /** The kernel changed the options. */
  readonly changed: ISignal<ILiveOptions, void>;
  /** The model is gone: closed by the kernel, or the kernel restarted. */
  readonly closed: ISignal<ILiveOptions, void>;
}

export class LiveModels {
  get(modelId: string): ILiveOptions | undefined {
    return this._models.get(modelId);
  }

  /** A model was added: its id. */
  get added(): ISignal<LiveModels, string> {
    return this._added;
  }

  add(modelId: string, model: ILiveOptions): void {
    this._models.set(modelId, model);
    model.closed.connect(() => this._models.delete(modelId));
    this._added.emit(modelId);
  }

  private _models = new Map<string, ILiveOptions>();
  private _added = new Signal<LiveModels, string>(this);
}
