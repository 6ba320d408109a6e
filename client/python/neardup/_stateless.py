"""neardup.fingerprint and neardup.compare: the CLI's `fingerprint` and
`compare` (and the server's Fingerprint and Compare) in process."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

from neardup import _engine

# txtfp's seed, neardup's default for text fingerprints.
DEFAULT_SEED = 0x00C0FFEE5EED


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
    # explain=True: (a_begin, a_end, b_begin, b_end) byte ranges of the
    # passages the texts share (runs of 5 or more equal words).
    passages: Optional[List[Tuple[int, int, int, int]]] = None
    passages_truncated: bool = False


def fingerprint(text: str, *, kind: str = "all", num_perm: int = 128,
                ngram: int = 0, tokenizer: str = "word",
                seed: int = DEFAULT_SEED, hash_family: str = "xxh3-64",
                profile: str = "txtfp", simhash: bool = False,
                keep: Sequence[str] = (), bits: int = 64,
                winnow_window: int = 4) -> Fingerprint:
    """A text's fingerprint, as `neardup fingerprint` prints it.

    kind: "all" (a collection's: MinHash, with ``simhash`` its SimHash,
    with ``keep`` its kept families such as "tlsh"), "minhash", "simhash",
    "tlsh", "tlsh-raw" (of the bytes as they are), "newsbot" (``bits``
    wide) or "perceptual" (UCFP; ``winnow_window``). ValueError for bad
    settings or a text the kind cannot fingerprint.
    """
    return Fingerprint(**_engine._fingerprint(
        text, kind, num_perm, ngram, tokenizer, seed, hash_family, profile,
        simhash, list(keep), bits, winnow_window))


def compare(a: str, b: str, *, kind: str = "all", explain: bool = False,
            num_perm: int = 128, ngram: int = 0, tokenizer: str = "word",
            seed: int = DEFAULT_SEED, hash_family: str = "xxh3-64",
            profile: str = "txtfp", simhash: bool = False,
            keep: Sequence[str] = (), bits: int = 64,
            winnow_window: int = 4) -> Comparison:
    """Two texts compared, as `neardup compare` does: for kind "all" the
    MinHash estimate, the exact Jaccard of the shingle sets, the SimHash
    distance and every kept family's distance the texts allow; with
    ``explain`` the passages they share."""
    out = _engine._compare(a, b, kind, num_perm, ngram, tokenizer, seed,
                           hash_family, profile, simhash, list(keep), bits,
                           winnow_window, explain)
    out["a"] = Fingerprint(**out["a"])
    out["b"] = Fingerprint(**out["b"])
    return Comparison(**out)
