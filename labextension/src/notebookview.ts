/**
 * The room in notebook outputs. `RoomWidget`'s output holds our mime type beside ipywidgets'
 * view; its renderer shows the room live whether or not the kernel still has the widget model
 * (widget/renderer.ts). The widget classes are registered with ipywidgets' widget manager when
 * ipywidgets' frontend is on the page; `@jupyter-widgets/base` is a shared singleton loaded only
 * then, so the panel works without it.
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';

import { IRooms } from './rooms';
import { LiveModels } from './widget/live';
import { MODULE_NAME, MODULE_VERSION, ROOM_MIME_TYPE } from './widget/options';
import { RENDERER_RANK, RoomOutputRenderer } from './widget/renderer';

export const notebookViewPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyter-copilot-room:notebook-view',
  description: 'The live Copilot room in notebook outputs (RoomWidget).',
  autoStart: true,
  requires: [IRooms, IRenderMimeRegistry],
  activate: (app: JupyterFrontEnd, rooms: IRooms, rendermime: IRenderMimeRegistry) => {
    const live = new LiveModels();
    rendermime.addFactory(
      {
        safe: true,
        mimeTypes: [ROOM_MIME_TYPE],
        createRenderer: () => new RoomOutputRenderer(rooms, live)
      },
      RENDERER_RANK
    );
    return registerWidget(app, rooms, live);
  }
};

async function registerWidget(
  app: JupyterFrontEnd,
  rooms: IRooms,
  live: LiveModels
): Promise<void> {
  let base: typeof import('@jupyter-widgets/base');
  try {
    base = await import('@jupyter-widgets/base');
  } catch {
    return; // no ipywidgets frontend: outputs still show the room, from their saved options
  }
  const registry = await app.resolveOptionalService(base.IJupyterWidgetRegistry);
  registry?.registerWidget({
    name: MODULE_NAME,
    version: MODULE_VERSION,
    exports: async () => (await import('./widget/ipywidget')).widgetExports(rooms, live)
  });
}
