"""Images and repository files sent with a prompt.

An image is uploaded first (`POST attachments`, its bytes as the body, its type as Content-Type)
and checked whole before anything is written: one of the four types the models take, its bytes
matching the type it claims, at most `MAX_IMAGE_BYTES` and `MAX_PIXELS` (a small file claiming
huge dimensions is a decompression bomb), and decoded to the end (a truncated image is refused).
It is then stored content-addressed, `state_dir/attachments/<sha256>`, so the same image sent
twice is stored once and a record names it by that hash, never holding its bytes. A prompt then
names uploads by id and repository files by path (`resolve`): the prompt's record holds what they
are, the turn reads them when it starts (`for_turn`). Pillow reads the headers and decodes.
"""

from __future__ import annotations

import base64
import errno
import hashlib
import io
import os
import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from PIL import Image as PILImage
from PIL import UnidentifiedImageError

from .agent.seam import File, TurnImage
from .errors import InsufficientStorage, InvalidRequest, NotFound, Refused, TooLarge
from .events import IMAGE_TYPES, MAX_FILE_BYTES, MAX_IMAGE_BYTES, MAX_IMAGES, Attachment

#: At most this many pixels (25 megapixels: a 5K screenshot), so decoding one costs ~100 MB.
MAX_PIXELS = 25_000_000

#: Pillow's format name -> the type the image must be declared as.
_FORMATS = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif", "WEBP": "image/webp"}
_ID = re.compile(r"^[0-9a-f]{64}$")


class RoomFolder(Protocol):
    """The room's folder as the attachments see it (the notebook editor is one): its root, and
    a path inside it resolved, links followed, raising when it leads out. A protocol, so the
    store stays below both the room and the notebook tools."""

    def root(self) -> Path: ...

    def resolve(self, path: str) -> str: ...


class UnsupportedType(Refused):
    """An upload of a type the room does not take (only the images models read)."""

    status = 415
    code = "unsupported_type"


@dataclass(frozen=True)
class Upload:
    """What a stored image is: the `POST attachments` answer, and a prompt record's part."""

    id: str
    mime: str
    bytes: int
    width: int
    height: int

    def attachment(self, name: str) -> Attachment:
        return Attachment(
            kind="image",
            id=self.id,
            name=name,
            mime=self.mime,
            bytes=self.bytes,
            width=self.width,
            height=self.height,
        )


def inspect(data: bytes, declared: str) -> Upload:
    """The image `data` is, checked whole; a clear 4xx (nothing stored) when it is not one."""
    declared = declared.split(";")[0].strip().lower()
    if declared not in IMAGE_TYPES:
        raise UnsupportedType(
            f"The room takes PNG, JPEG, GIF or WebP images, not {declared or 'no type'!r}."
        )
    if len(data) > MAX_IMAGE_BYTES:
        raise TooLarge(
            f"The image has {len(data):,} bytes; at most {MAX_IMAGE_BYTES:,} (10 MiB).",
            code="image_too_large",
        )
    try:
        with PILImage.open(io.BytesIO(data), formats=list(_FORMATS)) as image:
            found = _FORMATS[image.format or ""]
            if found != declared:
                raise InvalidRequest(
                    f"The image was sent as {declared} but its bytes are {found}.",
                    code="type_mismatch",
                )
            width, height = image.size
            if width * height > MAX_PIXELS:
                raise _too_many_pixels(width, height)
            image.load()  # decode to the end: a truncated or damaged image fails here
    except (PILImage.DecompressionBombError, PILImage.DecompressionBombWarning):
        raise _too_many_pixels(None, None) from None
    except UnidentifiedImageError:
        raise InvalidRequest(
            f"The bytes sent as {declared} are not a PNG, JPEG, GIF or WebP image.",
            code="not_an_image",
        ) from None
    except (OSError, SyntaxError, ValueError, EOFError) as err:
        raise InvalidRequest(
            f"The image is damaged or cut short ({err}); send the whole file.",
            code="damaged_image",
        ) from None
    return Upload(hashlib.sha256(data).hexdigest(), declared, len(data), width, height)


def _too_many_pixels(width: int | None, height: int | None) -> InvalidRequest:
    size = f"{width:,} x {height:,} pixels" if width and height else "more pixels than that"
    return InvalidRequest(
        f"The image claims {size}; the room takes at most {MAX_PIXELS:,} pixels.",
        code="image_too_large",
    )


class AttachmentStore:
    """`state_dir/attachments/`: each image once, named by the sha256 of its bytes."""

    def __init__(self, directory: Path):
        self.directory = directory

    def add(self, data: bytes, declared: str) -> Upload:
        """Check the image (refused whole: nothing written), then store it once. Runs in a
        worker thread: decoding an image takes a few to hundreds of milliseconds."""
        upload = inspect(data, declared)
        path = self.directory / upload.id
        if not path.exists():
            self.directory.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=".upload.", suffix=".tmp")
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(data)
                    f.flush()
                    os.fsync(f.fileno())
                os.replace(tmp, path)
            except BaseException as err:
                Path(tmp).unlink(missing_ok=True)
                if isinstance(err, OSError) and err.errno == errno.ENOSPC:
                    raise InsufficientStorage(
                        "The disk holding the room's state is full; the image was not stored.",
                    ) from None
                raise
        return upload

    def path(self, image_id: str) -> Path:
        """The stored image's file; 404 for an id that names none."""
        path = self.directory / image_id if _ID.match(image_id) else None
        if path is None or not path.is_file():
            raise NotFound(
                f"There is no attachment {image_id[:80]!r}; upload it first (POST attachments).",
                code="attachment_not_found",
            )
        return path

    def describe(self, image_id: str) -> Upload:
        """A stored image's type and size, from its header (it was checked whole on upload)."""
        path = self.path(image_id)
        with PILImage.open(path, formats=list(_FORMATS)) as image:
            width, height = image.size
            return Upload(
                image_id, _FORMATS[image.format or ""], path.stat().st_size, width, height
            )

    def resolve(
        self,
        refs: Sequence[tuple[str | None, str | None, str | None]],
        editor: RoomFolder | None,
    ) -> list[Attachment]:
        """A prompt's attachments (`(id, path, name)` each: an upload or a repository file) as its
        record holds them; a clear 4xx for one that is missing, too many images, or a file that
        is not inside the repository."""
        images = sum(image_id is not None for image_id, _, _ in refs)
        if images > MAX_IMAGES:
            raise InvalidRequest(
                f"A prompt takes at most {MAX_IMAGES} images; this one has {images}.",
                code="too_many_images",
            )
        attached: list[Attachment] = []
        for n, (image_id, path, name) in enumerate(refs, start=1):
            if (image_id is None) == (path is None):
                raise InvalidRequest(
                    f"Attachment {n} names either an uploaded image (id) or a repository file "
                    "(path), one of them.",
                    code="invalid_attachment",
                )
            if image_id is not None:
                attached.append(self.describe(image_id).attachment(name or f"image {n}"))
            else:
                assert path is not None
                attached.append(_file(path, name, editor))
        return attached

    def for_turn(
        self, attached: Sequence[Attachment], editor: RoomFolder | None
    ) -> tuple[list[TurnImage], list[File], list[str]]:
        """What the model is given when the turn starts: the images' bytes, the files' absolute
        paths, and a sentence for each that no longer exists (said, never dropped silently)."""
        images: list[TurnImage] = []
        files: list[File] = []
        missing: list[str] = []
        for item in attached:
            if item.kind == "image" and item.id is not None:
                try:
                    data = self.path(item.id).read_bytes()
                except (NotFound, OSError):
                    missing.append(f"the image {item.name!r} is no longer stored.")
                    continue
                images.append(
                    TurnImage(item.mime or "", base64.b64encode(data).decode(), item.name)
                )
            elif item.path is not None:
                try:
                    real = _inside(item.path, editor)
                except InvalidRequest:
                    missing.append(f"{item.path} no longer exists inside the repository.")
                    continue
                files.append(File(str(real), item.name or item.path))
        return images, files, missing


def _inside(path: str, editor: RoomFolder | None) -> Path:
    """The repository file `path` names, links followed; 400 when it leads outside."""
    where = f"The attached file {path[:200]!r}"
    if editor is None:
        raise InvalidRequest(
            f"{where}: this room reads no files, so it takes no file attachments.",
            code="invalid_attachment",
        )
    if Path(path).is_absolute():
        raise InvalidRequest(
            f"{where} is an absolute path; name a file inside the repository, relative to it.",
            code="outside_repository",
        )
    try:
        real = editor.root() / editor.resolve(path)
    except Exception:  # the folder's own refusal (a link or '..' out of it)
        raise InvalidRequest(
            f"{where} leads outside the repository (a link or '..'); attach files inside it.",
            code="outside_repository",
        ) from None
    if not real.is_file():
        raise InvalidRequest(f"{where}: there is no such file.", code="invalid_attachment")
    return real


def _file(path: str, name: str | None, editor: RoomFolder | None) -> Attachment:
    real = _inside(path, editor)
    size = real.stat().st_size
    if size > MAX_FILE_BYTES:
        raise TooLarge(
            f"The attached file {path[:200]!r} has {size:,} bytes; at most {MAX_FILE_BYTES:,}.",
            code="file_too_large",
        )
    return Attachment(kind="file", path=path, name=name or Path(path).name, bytes=size)
