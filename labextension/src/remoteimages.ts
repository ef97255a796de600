/**
 * Images in agent output: whatever loads by itself in one browser loads in every browser in the
 * room, so an image from another origin becomes a "Load image from <host>" button that loads it
 * for the person who clicks only; `data:` and same-origin images stay. Used by ./sanitize.ts
 * while cleaning, and by the reply view when a person clicks.
 */

/** The class of the click-to-load placeholder of a remote image. */
export const REMOTE_IMAGE_CLASS = 'jp-CopilotRoom-remoteImage';

/** Where an image's `src` points: loaded as it is, behind a click, or not at all. */
export type ImageSource =
  | { kind: 'inline'; url: string }
  | { kind: 'remote'; url: string; host: string }
  | { kind: 'none' };

/** `data:` URLs and URLs of `base`'s origin load as they are; other http(s) URLs wait for a
 * click; anything else (javascript:, file:, attachment:, unparsable) is not loaded. */
export function imageSource(src: string | null, base: string): ImageSource {
  const text = (src ?? '').trim();
  if (!text) {
    return { kind: 'none' };
  }
  let url: URL;
  try {
    url = new URL(text, base);
  } catch {
    return { kind: 'none' };
  }
  if (url.protocol === 'data:') {
    return { kind: 'inline', url: text };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { kind: 'none' };
  }
  if (url.origin === new URL(base).origin) {
    return { kind: 'inline', url: url.href };
  }
  return { kind: 'remote', url: url.href, host: url.host };
}

/** An image as it may be shown: an `<img>` of an inline source, a placeholder button for a
 * remote one, its alt text otherwise. */
export function cleanImage(img: Element, base: string): Node {
  const doc = img.ownerDocument;
  const alt = img.getAttribute('alt') ?? '';
  const source = imageSource(img.getAttribute('src'), base);
  if (source.kind === 'none') {
    return doc.createTextNode(alt);
  }
  if (source.kind === 'inline') {
    const kept = doc.createElement('img');
    kept.setAttribute('src', source.url);
    for (const name of ['alt', 'title', 'width', 'height']) {
      const value = img.getAttribute(name);
      if (value !== null) {
        kept.setAttribute(name, value);
      }
    }
    return kept;
  }
  const button = doc.createElement('button');
  button.setAttribute('type', 'button');
  button.className = REMOTE_IMAGE_CLASS;
  button.dataset.src = source.url;
  if (alt) {
    button.dataset.alt = alt;
  }
  button.title = alt ? `${alt}: ${source.url}` : source.url;
  button.textContent = `Load image from ${source.host}`;
  return button;
}

/** Replace a placeholder by its image, in this browser only (a person clicked it). */
export function loadRemoteImage(placeholder: HTMLElement): HTMLImageElement {
  const img = placeholder.ownerDocument.createElement('img');
  img.src = placeholder.dataset.src ?? '';
  img.alt = placeholder.dataset.alt ?? '';
  img.title = placeholder.dataset.src ?? '';
  placeholder.replaceWith(img);
  return img;
}

/** Load again, after a re-render, the images this person already chose to load. */
export function reloadChosenImages(host: Element, chosen: ReadonlySet<string>): void {
  for (const placeholder of Array.from(
    host.querySelectorAll<HTMLElement>(`button.${REMOTE_IMAGE_CLASS}`)
  )) {
    if (chosen.has(placeholder.dataset.src ?? '')) {
      loadRemoteImage(placeholder);
    }
  }
}
