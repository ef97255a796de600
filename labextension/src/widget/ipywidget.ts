/**
 * `RoomWidget`'s model and view classes for ipywidgets' widget manager (loaded only when
 * ipywidgets' frontend is on the page: see ../index.ts). The model holds only the view options;
 * the view shows the page's current room, never anything the kernel sends.
 */
import {
  DOMWidgetModel,
  DOMWidgetView,
  IBackboneModelOptions,
  WidgetModel
} from '@jupyter-widgets/base';
import { Message } from '@lumino/messaging';
import type { ObjectHash } from 'backbone';
import { ISignal, Signal } from '@lumino/signaling';
import { Widget } from '@lumino/widgets';

import { IRooms } from '../rooms';
import { ILiveOptions, LiveModels } from './live';
import { DEFAULT_OPTIONS, IViewOptions, MODULE_NAME, MODULE_VERSION, readOptions } from './options';
import { RoomOutputWidget } from './view';

/** The classes the widget manager builds for `RoomWidget`, bound to the page's room. */
export function widgetExports(
  rooms: IRooms,
  live: LiveModels
): { RoomWidgetModel: typeof DOMWidgetModel; RoomWidgetView: typeof DOMWidgetView } {
  class RoomWidgetModel extends DOMWidgetModel {
    defaults(): ObjectHash {
      return {
        ...super.defaults(),
        _model_name: 'RoomWidgetModel',
        _model_module: MODULE_NAME,
        _model_module_version: MODULE_VERSION,
        _view_name: 'RoomWidgetView',
        _view_module: MODULE_NAME,
        _view_module_version: MODULE_VERSION,
        parts: [...DEFAULT_OPTIONS.parts],
        height: DEFAULT_OPTIONS.height
      };
    }

    initialize(attributes: ObjectHash, options: IBackboneModelOptions): void {
      super.initialize(attributes, options);
      live.add(this.model_id, new ModelOptions(this));
    }
  }

  /** Where the widget manager shows it itself (inside a box of other widgets, say). */
  class RoomWidgetView extends DOMWidgetView {
    render(): void {
      const model = this.model;
      this._content = new RoomOutputWidget(rooms, optionsOf(model));
      this.listenTo(model, 'change:parts change:height', () => {
        if (this._content) {
          this._content.options = optionsOf(model);
        }
      });
    }

    processLuminoMessage(msg: Message): void {
      super.processLuminoMessage(msg);
      const content = this._content;
      if (msg.type === 'after-attach' && content && !content.isAttached) {
        Widget.attach(content, this.el);
      } else if (msg.type === 'before-detach' && content?.isAttached) {
        Widget.detach(content);
      }
    }

    remove(): this {
      this._content?.dispose();
      this._content = null;
      return super.remove();
    }

    private _content: RoomOutputWidget | null = null;
  }

  return { RoomWidgetModel, RoomWidgetView };
}

function optionsOf(model: WidgetModel): IViewOptions {
  return readOptions({ parts: model.get('parts'), height: model.get('height') });
}

/** A widget model's options, as the output renderer follows them. */
class ModelOptions implements ILiveOptions {
  constructor(model: WidgetModel) {
    this._model = model;
    model.on('change:parts change:height', () => this._changed.emit());
    model.once('destroy', () => this._closed.emit());
  }

  get options(): IViewOptions {
    return optionsOf(this._model);
  }

  get changed(): ISignal<ILiveOptions, void> {
    return this._changed;
  }

  get closed(): ISignal<ILiveOptions, void> {
    return this._closed;
  }

  private _model: WidgetModel;
  private _changed = new Signal<ILiveOptions, void>(this);
  private _closed = new Signal<ILiveOptions, void>(this);
}
