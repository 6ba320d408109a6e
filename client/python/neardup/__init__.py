"""neardup: near-duplicate text detection.

In-process (no server): :class:`MinHash` and :class:`MinHashLSH` with
datasketch's method names, :func:`minhash_text` for neardup's own text
signatures and :func:`canonicalize`. See client/python/README.md.
"""

from neardup._engine import (MinHash, MinHashLSH, canonicalize, minhash_text,
                             minhash_texts)
from neardup._sessions import MinHashLSHInsertionSession

__all__ = [
    "MinHash",
    "MinHashLSH",
    "MinHashLSHInsertionSession",
    "canonicalize",
    "minhash_text",
    "minhash_texts",
]
