"""neardup.fingerprint and neardup.compare: core's stateless calls (the
server's Fingerprint and Compare, the CLI's `fingerprint` and `compare`)
in process, with the CLI's option names for the options they take."""

from __future__ import annotations

import bisect
import itertools
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

from neardup import _engine

# txtfp's seed, neardup's default for text fingerprints.
DEFAULT_SEED = 0x00C0FFEE5EED
_KINDS = ("all", "minhash", "simhash", "tlsh", "tlsh-raw", "newsbot",
          "perceptual")


@dataclass
class Fingerprint:
    """What a kind computes for one text; unset parts are None."""
    minhash: Optional[bytes] = None  # txtfp's wire format: 8 + 8*num_perm
    minhash_config_hash: Optional[int] = None
    shingle_count: Optional[int] = None
    minhash_tokenizer: Optional[str] = None
    simhash: Optional[int] = None  # 64 bits
    simhash_config_hash: Optional[int] = None
    simhash_tokenizer: Optional[str] = None
    tlsh: Optional[str] = None  # "T1..."
    tlsh_config_hash: Optional[int] = None
    tlsh_unavailable: Optional[str] = None  # why a text has none
    newsbot: Optional[int] = None  # newsbot_bits bits
    newsbot_bits: Optional[int] = None
    newsbot_config_hash: Optional[int] = None
    newsbot_tokens: Optional[int] = None
    perceptual_shingles: Optional[int] = None
    perceptual_winnowed: Optional[int] = None
    kept: Dict[str, str] = field(default_factory=dict)  # family -> value
    kept_unavailable: Dict[str, str] = field(default_factory=dict)
    algorithm: str = ""
    canonicalizer: str = ""


@dataclass
class Comparison:
    """Two texts compared by a kind; unset parts are None."""
    estimated_jaccard: Optional[float] = None
    exact_jaccard: Optional[float] = None
    hamming_distance: Optional[int] = None
    cosine_estimate: Optional[float] = None
    tlsh_distance: Optional[int] = None
    tlsh_distance_without_length: Optional[int] = None
    tlsh_unavailable: str = ""
    kept_distances: Dict[str, int] = field(default_factory=dict)
    kept_unavailable: Dict[str, str] = field(default_factory=dict)
    a: Fingerprint = field(default_factory=Fingerprint)
    b: Fingerprint = field(default_factory=Fingerprint)
    # explain=True: (a_begin, a_end, b_begin, b_end), indexes into the str
    # a and b (a[a_begin:a_end]), of the passages the texts share (runs of
    # 5 or more equal words after canonicalization).
    passages: Optional[List[Tuple[int, int, int, int]]] = None
    passages_truncated: bool = False


def _words(kind: str, num_perm: int, ngram: int, tokenizer: str, seed: int,
           hash_family: str, profile: str, weighting: str, simhash: bool,
           keep: Sequence[str], bits: Optional[int],
           winnow_window: Optional[int]) -> Dict[str, Any]:
    """The options as the extension takes them, checked as the CLI does."""
    if kind not in _KINDS:
        raise ValueError(f"kind must be one of {', '.join(_KINDS)}, "
                         f"got {kind!r}")
    if bits is not None and kind != "newsbot":
        raise ValueError("bits applies to kind 'newsbot' only")
    if winnow_window is not None and kind != "perceptual":
        raise ValueError("winnow_window applies to kind 'perceptual' only")
    if isinstance(keep, (str, bytes)):
        raise TypeError("keep takes a list of family names, not one str")
    if (simhash or keep) and kind != "all":
        raise ValueError("simhash and keep apply to kind 'all' only")
    bits = 64 if bits is None else bits
    if bits not in (16, 32, 64, 128):
        raise ValueError(f"bits must be 16, 32, 64 or 128, got {bits}")
    winnow_window = 4 if winnow_window is None else winnow_window
    if not 1 <= winnow_window <= 1024:
        raise ValueError(f"winnow_window must be in [1, 1024], got "
                         f"{winnow_window}")
    if not 0 <= seed < 2**64:
        raise ValueError(f"seed must be in [0, 2**64), got {seed}")
    for name, value in (("num_perm", num_perm), ("ngram", ngram)):
        if not 0 <= value < 2**31:
            raise ValueError(f"{name} out of range: {value}")
    return {"kind": kind, "num_perm": num_perm, "ngram": ngram,
            "tokenizer": tokenizer, "seed": seed, "hash_family": hash_family,
            "profile": profile, "weighting": weighting,
            "simhash": bool(simhash), "keep": list(keep), "bits": bits,
            "winnow_window": winnow_window}


def _fingerprint_of(values: Dict[str, Any]) -> Fingerprint:
    high = values.pop("newsbot_high", None)
    low = values.pop("newsbot_low", None)
    if high is not None and low is not None:
        values["newsbot"] = (high << 64) | low
    return Fingerprint(**values)


def _str_indexes(text: str, byte_offsets: List[int]) -> List[int]:
    """UTF-8 byte offsets into `text` as indexes of its characters."""
    # ends[i]: the byte offset where character i ends. A character starts
    # at the offset where the ones before it end.
    ends = list(itertools.accumulate(len(c.encode("utf-8")) for c in text))
    return [bisect.bisect_right(ends, offset) for offset in byte_offsets]


def fingerprint(text: str, *, kind: str = "all", num_perm: int = 128,
                ngram: int = 0, tokenizer: str = "word",
                seed: int = DEFAULT_SEED, hash_family: str = "xxh3-64",
                profile: str = "txtfp", weighting: str = "tf",
                simhash: bool = False, keep: Sequence[str] = (),
                bits: Optional[int] = None,
                winnow_window: Optional[int] = None) -> Fingerprint:
    """A text's fingerprint.

    kind: "all" (what a collection of these settings stores, the server's
    FINGERPRINT_KIND_UNSPECIFIED: its MinHash, with ``simhash`` its SimHash,
    with ``keep`` its kept families such as "tlsh"), or one of the CLI's
    `fingerprint --kind`: "minhash", "simhash" (``weighting`` "tf" or
    "uniform"), "tlsh", "tlsh-raw" (the CLI's ``--raw``: the bytes as they
    are), "newsbot" (``bits`` 16, 32, 64 or 128) or "perceptual" (UCFP;
    ``winnow_window``). The canonicalizer is a ``profile`` ("txtfp" or
    "robust"); the text is plain text (no HTML, Markdown or PDF
    extraction). ValueError for bad settings or a text the kind cannot
    fingerprint.
    """
    words = _words(kind, num_perm, ngram, tokenizer, seed, hash_family,
                   profile, weighting, simhash, keep, bits, winnow_window)
    return _fingerprint_of(_engine._fingerprint(text, words))


def compare(a: str, b: str, *, kind: str = "all", explain: bool = False,
            num_perm: int = 128, ngram: int = 0, tokenizer: str = "word",
            seed: int = DEFAULT_SEED, hash_family: str = "xxh3-64",
            profile: str = "txtfp", weighting: str = "tf",
            bits: Optional[int] = None,
            winnow_window: Optional[int] = None) -> Comparison:
    """Two texts compared, as `neardup compare` does: for kind "all" the
    MinHash estimate, the exact Jaccard of the shingle sets, the SimHash
    distance and the distance of every kept family both texts allow (TLSH
    from 50 bytes); "tlsh", "newsbot" or "perceptual" compare by that
    family alone. With ``explain`` the passages they share."""
    out = _engine._compare(
        a, b, _words(kind, num_perm, ngram, tokenizer, seed, hash_family,
                     profile, weighting, False, (), bits, winnow_window),
        explain)
    out["a"] = _fingerprint_of(out["a"])
    out["b"] = _fingerprint_of(out["b"])
    if out.get("passages"):
        flat_a = _str_indexes(a, [x for p in out["passages"] for x in p[:2]])
        flat_b = _str_indexes(b, [x for p in out["passages"] for x in p[2:]])
        out["passages"] = [(flat_a[2 * i], flat_a[2 * i + 1], flat_b[2 * i],
                            flat_b[2 * i + 1])
                           for i in range(len(out["passages"]))]
    return Comparison(**out)
