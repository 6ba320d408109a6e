"""MinHashLSH.insertion_session: datasketch's buffered insertion."""

from __future__ import annotations

from types import TracebackType
from typing import TYPE_CHECKING, Hashable, List, Optional, Tuple, Type

if TYPE_CHECKING:
    from neardup._engine import MinHash, MinHashLSH


class MinHashLSHInsertionSession:
    """Buffers inserts and adds them in batches of ``buffer_size``.

    Each batch goes in all or nothing (:meth:`MinHashLSH.insert_many`):
    a duplicate key raises ValueError and leaves the batch out. Leaving the
    ``with`` block inserts what is left, unless the block raised.
    """

    def __init__(self, lsh: "MinHashLSH", buffer_size: int = 50000) -> None:
        if buffer_size < 1:
            raise ValueError(f"buffer_size must be >= 1, got {buffer_size}")
        self._lsh = lsh
        self._buffer_size = buffer_size
        self._items: List[Tuple[Hashable, "MinHash"]] = []
        self._check_duplication = True

    def insert(self, key: Hashable, minhash: "MinHash",
               check_duplication: bool = True) -> None:
        """Adds (key, minhash) to the buffer; inserts a full buffer."""
        if check_duplication != self._check_duplication and self._items:
            self.flush()
        self._check_duplication = check_duplication
        self._items.append((key, minhash))
        if len(self._items) >= self._buffer_size:
            self.flush()

    def flush(self) -> None:
        """Inserts what the buffer holds."""
        items, self._items = self._items, []
        if items:
            self._lsh.insert_many(items, self._check_duplication)

    def close(self) -> None:
        self.flush()

    def __enter__(self) -> "MinHashLSHInsertionSession":
        return self

    def __exit__(self, exc_type: Optional[Type[BaseException]],
                 exc: Optional[BaseException],
                 traceback: Optional[TracebackType]) -> None:
        if exc_type is None:
            self.flush()
