/**
 * Images and repository files sent with a prompt. An image pasted, dropped or picked into the
 * prompt box is checked here first (type, size, how many: the room's own limits, so the reader
 * learns at once), uploaded (`POST attachments` -> id) and shown as a thumbnail until the prompt
 * is sent; the prompt names it by id, a repository file by path. The room checks everything again
 * (`jupyter_copilot_room/attachments.py`). Everyone admitted sees a prompt's images as
 * thumbnails in the transcript.
 */

import { IMAGE_TYPES, MAX_IMAGE_BYTES, MAX_IMAGES } from './generated/declarations';

/** The image types the room takes, at most this many per prompt and this many bytes each
 * (`events`, generated). */
export { IMAGE_TYPES, MAX_IMAGE_BYTES, MAX_IMAGES };

/** An attachment as `POST prompts` names it. */
export interface IAttachmentRef {
  id?: string;
  path?: string;
  name?: string;
}

/** An attachment as the transcript shows it (`events.Attachment`). */
export interface IShownAttachment {
  kind: 'image' | 'file';
  id?: string;
  path?: string;
  name: string;
  mime?: string;
  bytes: number;
  width?: number;
  height?: number;
}

/** What `POST attachments` answers. */
export interface IUpload {
  id: string;
  mime: string;
  bytes: number;
  width: number;
  height: number;
}

/** What the check needs of a file the reader offered (a `File` has all of it). */
export interface ICandidate {
  name: string;
  type: string;
  size: number;
}

/** `n` bytes in words a reader knows (KiB, MiB). */
export function formatBytes(n: number): string {
  if (n < 1024) {
    return `${n} B`;
  }
  if (n < 1024 * 1024) {
    return `${(n / 1024).toFixed(n < 10 * 1024 ? 1 : 0)} KiB`;
  }
  return `${(n / (1024 * 1024)).toFixed(1)} MiB`;
}

/** Which of `candidates` may join the `already` images of the prompt, and why each other may
 * not: a type the room does not take, too many bytes, more than `MAX_IMAGES` in all. */
export function checkImages<T extends ICandidate>(
  already: number,
  candidates: readonly T[]
): { accepted: T[]; refused: string[] } {
  const accepted: T[] = [];
  const refused: string[] = [];
  for (const file of candidates) {
    const name = file.name || 'The pasted image';
    if (!IMAGE_TYPES.includes(file.type)) {
      refused.push(
        `${name} is not a PNG, JPEG, GIF or WebP image${file.type ? ` (it is ${file.type})` : ''}.`
      );
    } else if (file.size > MAX_IMAGE_BYTES) {
      refused.push(
        `${name} has ${formatBytes(file.size)}; an image may have at most ${MAX_IMAGE_BYTES / (1024 * 1024)} MiB.`
      );
    } else if (already + accepted.length >= MAX_IMAGES) {
      refused.push(`${name} was not added: a prompt takes at most ${MAX_IMAGES} images.`);
    } else {
      accepted.push(file);
    }
  }
  return { accepted, refused };
}

/** An attachment in a few words: its name, and an image's size. */
export function attachmentTitle(a: IShownAttachment): string {
  if (a.kind === 'file') {
    return `File ${a.path ?? a.name} (${formatBytes(a.bytes)})`;
  }
  const size = a.width && a.height ? `${a.width}×${a.height}, ` : '';
  return `${a.name} (${size}${formatBytes(a.bytes)})`;
}
