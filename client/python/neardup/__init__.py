"""neardup: near-duplicate text detection.

In-process (no server): :class:`MinHash` and :class:`MinHashLSH` with
datasketch's method names, :func:`minhash_text` and :func:`minhash_texts`
for neardup's own text signatures, and :func:`canonicalize`.

A server: :class:`Client` and :class:`AsyncClient` for neardupd, with the
API's messages as dataclasses in :mod:`neardup.messages` and typed errors
(:class:`NeardupError` and its subclasses). See client/python/README.md.
"""

from neardup._engine import (MinHash, MinHashLSH, canonicalize, minhash_text,
                             minhash_texts)
from neardup._sessions import MinHashLSHInsertionSession
from neardup.client import AsyncClient, Client
from neardup.errors import (AlreadyExists, Cancelled, ConfigMismatch,
                            DeadlineExceeded, Internal, InvalidArgument,
                            NeardupError, NotFound, PermissionDenied,
                            ResourceExhausted, Unauthenticated, Unavailable)

__all__ = [
    "AlreadyExists",
    "AsyncClient",
    "Cancelled",
    "Client",
    "ConfigMismatch",
    "DeadlineExceeded",
    "Internal",
    "InvalidArgument",
    "MinHash",
    "MinHashLSH",
    "MinHashLSHInsertionSession",
    "NeardupError",
    "NotFound",
    "PermissionDenied",
    "ResourceExhausted",
    "Unauthenticated",
    "Unavailable",
    "canonicalize",
    "minhash_text",
    "minhash_texts",
]
