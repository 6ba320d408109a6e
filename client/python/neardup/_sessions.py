"""MinHashLSH.insertion_session: datasketch's buffered insertion."""

from __future__ import annotations

from types import TracebackType
from typing import (TYPE_CHECKING, Hashable, List, Optional, Set, Tuple,
                    Type)

if TYPE_CHECKING:
    from neardup._engine import MinHash, MinHashLSH


class MinHashLSHInsertionSession:
    """Buffers inserts and adds them in batches of ``buffer_size``.

    As in datasketch, :meth:`insert` refuses a key the index or the buffer
    already holds (ValueError) at once, and leaving the ``with`` block
    inserts what is buffered, whether or not the block raised. Each batch
    goes in all or nothing (:meth:`MinHashLSH.insert_many`); a batch that
    fails stays buffered.
    """

    def __init__(self, lsh: "MinHashLSH", buffer_size: int = 50000) -> None:
        if buffer_size < 1:
            raise ValueError(f"buffer_size must be >= 1, got {buffer_size}")
        self._lsh = lsh
        self._buffer_size = buffer_size
        self._items: List[Tuple[Hashable, "MinHash"]] = []
        self._keys: Set[Hashable] = set()
        self._check_duplication = True

    def insert(self, key: Hashable, minhash: "MinHash",
               check_duplication: bool = True) -> None:
        """Buffers (key, minhash); inserts the buffer once it is full."""
        if len(minhash) != self._lsh.h:
            raise ValueError(f"expecting a MinHash with num_perm "
                             f"{self._lsh.h}, got {len(minhash)}")
        if check_duplication and (key in self._keys or key in self._lsh):
            raise ValueError(f"The given key already exists: {key!r}")
        if check_duplication != self._check_duplication and self._items:
            self.flush()
        self._check_duplication = check_duplication
        self._items.append((key, minhash))
        self._keys.add(key)
        if len(self._items) >= self._buffer_size:
            self.flush()

    def flush(self) -> None:
        """Inserts what the buffer holds (kept there if that fails)."""
        if self._items:
            self._lsh.insert_many(self._items, self._check_duplication)
            self._items = []
            self._keys = set()

    def close(self) -> None:
        self.flush()

    def __enter__(self) -> "MinHashLSHInsertionSession":
        return self

    def __exit__(self, exc_type: Optional[Type[BaseException]],
                 exc: Optional[BaseException],
                 traceback: Optional[TracebackType]) -> None:
        self.flush()
