"""Random identifiers. The `uuid` module is slow to import (it pulls in `platform`), and only version-4 UUIDs
are needed, so they are made here from `os.urandom`."""

from __future__ import annotations

import os


def new_uuid() -> str:
    """A random (version 4) UUID, as str(uuid.uuid4()) gives it."""
    b = bytearray(os.urandom(16))
    b[6] = (b[6] & 0x0F) | 0x40
    b[8] = (b[8] & 0x3F) | 0x80
    h = b.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
