import { describe, expect, it } from 'vitest';

import { attachmentTitle, checkImages, formatBytes, MAX_IMAGE_BYTES } from '../src/attachments';

const png = (name: string, size = 1000) => ({ name, type: 'image/png', size });

describe('checkImages', () => {
  it('takes the four image types the room takes', () => {
    const files = ['png', 'jpeg', 'gif', 'webp'].map(t => ({
      name: `a.${t}`,
      type: `image/${t}`,
      size: 10
    }));
    expect(checkImages(0, files)).toEqual({ accepted: files, refused: [] });
  });

  it('refuses another type, saying which it is', () => {
    const { accepted, refused } = checkImages(0, [
      { name: 'scan.svg', type: 'image/svg+xml', size: 10 },
      { name: 'notes', type: '', size: 10 }
    ]);
    expect(accepted).toEqual([]);
    expect(refused).toEqual([
      'scan.svg is not a PNG, JPEG, GIF or WebP image (it is image/svg+xml).',
      'notes is not a PNG, JPEG, GIF or WebP image.'
    ]);
  });

  it('refuses an image over 10 MiB and takes one of exactly 10 MiB', () => {
    const { accepted, refused } = checkImages(0, [
      png('big.png', MAX_IMAGE_BYTES + 1),
      png('edge.png', MAX_IMAGE_BYTES)
    ]);
    expect(accepted.map(f => f.name)).toEqual(['edge.png']);
    expect(refused).toEqual(['big.png has 10.0 MiB; an image may have at most 10 MiB.']);
  });

  it('takes at most four images per prompt, counting those already attached', () => {
    const { accepted, refused } = checkImages(2, [png('1.png'), png('2.png'), png('3.png')]);
    expect(accepted.map(f => f.name)).toEqual(['1.png', '2.png']);
    expect(refused).toEqual(['3.png was not added: a prompt takes at most 4 images.']);
    expect(checkImages(4, [png('x.png')]).accepted).toEqual([]);
  });

  it('names a pasted image that has no name', () => {
    expect(checkImages(0, [{ name: '', type: 'text/plain', size: 1 }]).refused[0]).toMatch(
      /^The pasted image is not/
    );
  });
});

describe('attachmentTitle', () => {
  it('says an image size and a file path', () => {
    expect(
      attachmentTitle({ kind: 'image', name: 'shot.png', bytes: 2048, width: 3, height: 2 })
    ).toBe('shot.png (3×2, 2.0 KiB)');
    expect(attachmentTitle({ kind: 'file', name: 'a.py', path: 'src/a.py', bytes: 12 })).toBe(
      'File src/a.py (12 B)'
    );
    expect(formatBytes(3 * 1024 * 1024)).toBe('3.0 MiB');
  });
});
