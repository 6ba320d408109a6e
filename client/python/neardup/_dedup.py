"""neardup.dedup: `neardup dedup` over records in memory (any iterable of
str, bytes or dicts), with the CLI's options and the CLI's results."""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass, field
from itertools import islice
from collections.abc import Mapping
from typing import (Any, Deque, Dict, Generic, Iterable, Iterator, List,
                    Optional, TypeVar)

from neardup import _engine

R = TypeVar("R")

# txtfp's seed, neardup's default for text fingerprints.
DEFAULT_SEED = 0x00C0FFEE5EED
_METHODS = ("minhash-lsh", "minhash", "lshbloom", "simhash", "perceptual")


@dataclass
class Cluster:
    """Records removed as near-duplicates of one kept record, as
    ``neardup dedup --clusters`` writes them. Numbers are positions in the
    input (0-based, every record counted)."""
    representative: int  # the kept record
    members: List[int]  # the representative first, then the removed ones
    size: int
    mean_similarity: float  # of the removed members to the representative


@dataclass
class DedupStats:
    """The counters of a run so far, as ``neardup dedup --stats`` names
    them. A malformed record that stopped the run counts in ``total``
    only."""
    method: str
    verification: str
    total: int  # records taken
    unique: int  # records kept
    duplicates: int  # removed as near-duplicates
    empty: int  # without tokens (kept unless drop_empty)
    invalid: int  # malformed and skipped (skip_invalid)
    input_bytes: int  # UTF-8 bytes of the texts (the CLI: of the files)
    method_stats: Dict[str, Any] = field(default_factory=dict)


class DedupRun(Generic[R]):
    """The kept records of :func:`dedup`, an iterator: records are read,
    fingerprinted and decided a batch at a time, as the iteration goes.
    ``clusters`` and ``stats`` describe what has been decided so far; after
    the last record, the whole input. One thread at a time may iterate a
    run (as with any Python generator)."""

    def __init__(self, records: Iterable[R], words: Dict[str, Any],
                 field: str, batch_size: int, expected_docs: int) -> None:
        self._records: Iterator[R] = iter(records)
        self._field = field
        self._batch_size = batch_size
        self._engine = _engine._Dedup(words, expected_docs)
        self._ready: Deque[R] = deque()
        self._stop: Optional[BaseException] = None
        self._done = False

    def __iter__(self) -> DedupRun[R]:
        return self

    def __next__(self) -> R:
        while not self._ready:
            if self._stop is not None:
                stop, self._stop = self._stop, None
                self._done = True
                raise stop
            if self._done:
                raise StopIteration
            self._decide_next_batch()
        return self._ready.popleft()

    def _decide_next_batch(self) -> None:
        # The records the source gave before an exception of its own are
        # decided (and theirs yielded) before that exception is raised.
        batch: List[R] = []
        source_error: Optional[BaseException] = None
        try:
            batch.extend(islice(self._records, self._batch_size))
        except BaseException as e:
            source_error = e
        if not batch:
            self._done = True
            if source_error is not None:
                raise source_error
            return
        try:
            kept, stop = self._engine.decide(batch, self._field)
        except BaseException:
            # The engine takes no more records after an error in a batch.
            self._done = True
            raise
        self._ready.extend(batch[i] for i in kept)
        if stop is not None:
            kind, detail = stop
            if kind == "raise":  # a mapping's own exception
                self._stop = detail
            elif kind == "ValueError":
                self._stop = ValueError(
                    detail + " (skip_invalid=True skips such records)")
            else:
                self._stop = TypeError(detail)
        elif source_error is not None:
            self._stop = source_error

    @property
    def clusters(self) -> List[Cluster]:
        """Every cluster so far, by representative. ValueError for
        lshbloom, which keeps no records to name."""
        return [Cluster(**{k: c[k] for k in ("representative", "members",
                                             "size", "mean_similarity")})
                for c in map(json.loads,
                             self._engine.clusters_json_lines().splitlines())]

    @property
    def stats(self) -> DedupStats:
        """The counters so far."""
        values = json.loads(self._engine.stats_json())
        names = ("method", "verification", "total", "unique", "duplicates",
                 "empty", "invalid", "input_bytes")
        own = {k: v for k, v in values.items()
               if k not in names + ("algorithm", "verify", "duplicate_ratio",
                                    "seconds", "docs_per_second",
                                    "mb_per_second", "peak_rss_bytes")}
        return DedupStats(**{k: values[k] for k in names}, method_stats=own)


_INTS = ("evidence_bits", "bands", "max_distance", "bits", "winnow_window",
         "num_perm", "ngram", "threads", "seed", "batch_size")
_FLOATS = ("threshold", "bloom_fp")
_STRS = ("field", "method", "simhash_variant", "tokenizer", "hash_family",
         "profile", "normalization", "case_fold", "weighting",
         "content_type")
# The canonicalizer's switches, as the CLI's flags of the same names.
_SWITCHES = ("keep_bidi", "keep_format", "confusable", "strip_ignorables",
             "fold_small_capitals", "fold_look_alikes")


def _check_types(arguments: Dict[str, Any]) -> None:
    """TypeError for an option of the wrong type, before any record."""
    for name in _INTS:
        if not isinstance(arguments[name], int) or isinstance(
                arguments[name], bool):
            raise TypeError(f"{name} takes an int, got "
                            f"{arguments[name]!r}")
    for name in _FLOATS:
        if not isinstance(arguments[name], (int, float)) or isinstance(
                arguments[name], bool):
            raise TypeError(f"{name} takes a number, got "
                            f"{arguments[name]!r}")
    for name in _STRS:
        if not isinstance(arguments[name], str):
            raise TypeError(f"{name} takes a str, got {arguments[name]!r}")
    for name in ("verification", "expected_docs"):
        value = arguments[name]
        wanted = str if name == "verification" else int
        if value is not None and (not isinstance(value, wanted) or
                                  isinstance(value, bool)):
            raise TypeError(f"{name} takes a {wanted.__name__} or None, got "
                            f"{value!r}")


def dedup(records: Iterable[R], *, field: str = "text",
          method: str = "minhash-lsh", verification: Optional[str] = None,
          threshold: float = 0.85, evidence_bits: int = 64, bands: int = 0,
          max_distance: int = 3,
          simhash_variant: str = "txtfp", bits: int = 64,
          winnow_window: int = 4, expected_docs: Optional[int] = None,
          bloom_fp: float = 0.001, num_perm: int = 128, ngram: int = 0,
          tokenizer: str = "word", seed: int = DEFAULT_SEED,
          hash_family: str = "xxh3-64", profile: str = "txtfp",
          normalization: str = "nfkc", case_fold: str = "full",
          keep_bidi: bool = False, keep_format: bool = False,
          confusable: bool = False, strip_ignorables: bool = False,
          fold_small_capitals: bool = False, fold_look_alikes: bool = False,
          weighting: str = "tf", threads: int = 0,
          skip_invalid: bool = False, drop_empty: bool = False,
          content_type: str = "text/plain",
          batch_size: int = 2048) -> DedupRun[R]:
    """Removes near-duplicate records, keeping the first of each group in
    input order, as ``neardup dedup`` does: the same options (the CLI's
    flags with underscores; ``field`` is ``--field``, ``profile`` the
    canonicalizer profile "txtfp" or "robust") keep the same records and
    make the same clusters. The canonicalizer's single switches are the
    CLI's too: ``normalization`` ("nfkc", "nfc" or "none"), ``case_fold``
    ("full" or "none"), ``keep_bidi``, ``keep_format``, ``confusable``,
    ``strip_ignorables``, ``fold_small_capitals`` and ``fold_look_alikes``
    (a ``profile``'s switches add to these).

    ``records``: any iterable of str, bytes or mappings (dicts, Hugging
    Face ``datasets`` rows) whose ``field`` holds the text; it is read
    lazily, a ``batch_size`` at a time, and the kept records come back as
    they were (the same objects). A record without its text (no field, not
    a string, not UTF-8) raises ValueError where it is met unless
    ``skip_invalid``; a record of another type raises TypeError.

    ``content_type``: what the texts are, as ``--content-type``:
    "text/plain" (default), "text/html" or "text/markdown", whose visible
    text is fingerprinted as the CLI's dedup extracts it (a record that
    cannot be parsed is malformed, as one without its text). PDF is not
    parsed in-process (the CLI parses each in a child process): give its
    text, or run ``neardup dedup --content-type application/pdf``. The
    package that pip builds has no parsers and takes plain text only.

    ``method``: "minhash-lsh" (default), "lshbloom", "simhash" or
    "perceptual". ``verification``: "exact" (default; exact Jaccard of the
    shingle sets), "estimate" (lshbloom's default) or "none".
    ``evidence_bits``: 64 (default) or 32, the bits of each shingle hash
    that exact verification compares, as ``--evidence-bits``.
    ``expected_docs`` sizes lshbloom's Bloom filters (default:
    ``len(records)`` when it has one, else a million); the CLI
    estimates it from the input's size, so give both the same number for
    identical lshbloom results. ``threads``: fingerprinting threads (0: one
    per core); the results do not depend on it.
    """
    if method not in _METHODS:
        raise ValueError(f"method must be one of {', '.join(_METHODS)}, "
                         f"got {method!r}")
    if verification is None:
        verification = "estimate" if method == "lshbloom" else "exact"
    if isinstance(records, (str, bytes, bytearray, Mapping)):
        raise TypeError("records takes an iterable of records, not one "
                        "record")
    _check_types(locals())
    if not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(f"batch_size must be a positive int, got "
                         f"{batch_size!r}")
    if not 0 <= seed < 2**64:
        raise ValueError(f"seed must be in [0, 2**64), got {seed}")
    for name, value in (("evidence_bits", evidence_bits), ("bands", bands),
                        ("max_distance", max_distance),
                        ("bits", bits), ("winnow_window", winnow_window),
                        ("num_perm", num_perm), ("ngram", ngram),
                        ("threads", threads)):
        if not -2**31 <= value < 2**31:
            raise ValueError(f"{name} out of range: {value}")
    if expected_docs is not None and not 0 < expected_docs < 2**63:
        raise ValueError(f"expected_docs must be positive, got "
                         f"{expected_docs}")
    size = 0
    if expected_docs is None:
        try:
            size = len(records)  # type: ignore[arg-type]
        except TypeError:
            size = 0
    words = {"method": method, "verification": verification,
             "threshold": float(threshold), "evidence_bits": evidence_bits,
             "bands": bands,
             "max_distance": max_distance,
             "simhash_variant": simhash_variant, "bits": bits,
             "winnow_window": winnow_window,
             "expected_docs": expected_docs or 0,
             "bloom_fp": float(bloom_fp), "threads": threads,
             "skip_invalid": bool(skip_invalid),
             "drop_empty": bool(drop_empty), "num_perm": num_perm,
             "ngram": ngram, "tokenizer": tokenizer, "seed": seed,
             "hash_family": hash_family, "profile": profile,
             "normalization": normalization, "case_fold": case_fold,
             "weighting": weighting, "content_type": content_type}
    arguments = locals()
    words.update({name: bool(arguments[name]) for name in _SWITCHES})
    return DedupRun(records, words, field, batch_size, size)
