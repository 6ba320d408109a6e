"""neardup: near-duplicate text detection.

In-process (no server): :class:`MinHash` and :class:`MinHashLSH` with
datasketch's method names, :func:`minhash_text` and :func:`minhash_texts`
for neardup's own text signatures, :func:`fingerprint` and :func:`compare`
(every family: MinHash, SimHash, TLSH, newsbot, perceptual),
:func:`canonicalize`, and :func:`dedup` (``neardup dedup`` over records in
memory).

A server: :class:`Client` and :class:`AsyncClient` for neardupd, with the
API's messages as dataclasses in :mod:`neardup.messages` and typed errors
(:class:`NeardupError` and its subclasses). See client/python/README.md.
"""

from typing import TYPE_CHECKING, Any

from neardup._engine import (MinHash, MinHashLSH, canonicalize, minhash_text,
                             minhash_texts)
from neardup._dedup import Cluster, DedupRun, DedupStats, dedup
from neardup._sessions import MinHashLSHInsertionSession
from neardup._stateless import Comparison, Fingerprint, compare, fingerprint

if TYPE_CHECKING:
    from neardup.client import AsyncClient, Client
    from neardup.errors import (AlreadyExists, Cancelled, ConfigMismatch,
                                DeadlineExceeded, Internal, InvalidArgument,
                                NeardupError, NotFound, PermissionDenied,
                                ResourceExhausted, Unauthenticated,
                                Unavailable)

_CLIENT_NAMES = {"AsyncClient", "Client"}
_ERROR_NAMES = {"AlreadyExists", "Cancelled", "ConfigMismatch",
                "DeadlineExceeded", "Internal", "InvalidArgument",
                "NeardupError", "NotFound", "PermissionDenied",
                "ResourceExhausted", "Unauthenticated", "Unavailable"}


def __getattr__(name: str) -> Any:
    # The client (grpc, the API's messages) loads when first named, so an
    # in-process user pays nothing for it.
    if name in _CLIENT_NAMES:
        from neardup import client
        return getattr(client, name)
    if name in _ERROR_NAMES:
        from neardup import errors
        return getattr(errors, name)
    raise AttributeError(f"module 'neardup' has no attribute {name!r}")


__all__ = [
    "AlreadyExists",
    "AsyncClient",
    "Cancelled",
    "Client",
    "Cluster",
    "Comparison",
    "ConfigMismatch",
    "DeadlineExceeded",
    "DedupRun",
    "DedupStats",
    "Fingerprint",
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
    "compare",
    "dedup",
    "fingerprint",
    "minhash_text",
    "minhash_texts",
]
