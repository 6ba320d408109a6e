"""neardup.dedup: the CLI's `neardup dedup` over records in memory."""

import collections.abc
import json
import os
import random
import subprocess
from typing import Any, Dict, Iterator, List

import pytest

import neardup


def corpus(n: int = 1200, seed: int = 7) -> List[Dict[str, Any]]:
    """Records of 60 words, every third an edited copy of an earlier one,
    some exact copies, an empty text and a Unicode one."""
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(1500)] + ["naïve", "Ωmega", "東京"]
    records: List[Dict[str, Any]] = []
    for i in range(n):
        if i % 3 == 2:
            source = records[rng.randrange(len(records))]["text"].split()
            for _ in range(rng.randrange(1, 6)):
                source[rng.randrange(len(source))] = rng.choice(words)
            text = " ".join(source)
        elif i % 50 == 7:
            text = records[rng.randrange(len(records))]["text"]
        else:
            text = " ".join(rng.choice(words) for _ in range(60))
        records.append({"id": i, "text": text})
    records[11]["text"] = ""
    return records


def cli_dedup(records, tmp_path, *flags):
    """Kept ids and clusters of `neardup dedup` over the records as JSONL."""
    binary = os.environ.get("NEARDUP")
    if not binary:
        pytest.skip("NEARDUP is not set (the suite sets it)")
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in records),
                      encoding="utf-8")
    out, clusters = tmp_path / "out.jsonl", tmp_path / "clusters.jsonl"
    command = [binary, "dedup", str(source), "-o", str(out), *flags]
    if "lshbloom" not in flags:
        command += ["--clusters", str(clusters)]
    # Not the ASan runtime the sanitizer build preloads into python3.
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    subprocess.run(command, check=True, capture_output=True, env=env)
    kept = [json.loads(line)["id"] for line in out.read_text().splitlines()]
    found = ([json.loads(line) for line in clusters.read_text().splitlines()]
             if clusters.exists() else None)
    return kept, found


SETTINGS = [
    ({}, []),
    ({"verification": "estimate"}, ["--verification", "estimate"]),
    ({"verification": "none", "threshold": 0.7},
     ["--verification", "none", "--threshold", "0.7"]),
    ({"method": "simhash"}, ["--method", "simhash"]),
    ({"evidence_bits": 32}, ["--evidence-bits", "32"]),
    ({"normalization": "nfc", "case_fold": "none", "keep_bidi": True,
      "keep_format": True},
     ["--normalization", "nfc", "--case-fold", "none", "--keep-bidi",
      "--keep-format"]),
    ({"confusable": True, "strip_ignorables": True,
      "fold_small_capitals": True, "fold_look_alikes": True},
     ["--confusable", "--strip-ignorables", "--fold-small-capitals",
      "--fold-look-alikes"]),
    ({"method": "simhash", "verification": "estimate", "max_distance": 6},
     ["--method", "simhash", "--verification", "estimate",
      "--max-distance", "6"]),
    ({"method": "perceptual", "winnow_window": 3},
     ["--method", "perceptual", "--winnow-window", "3"]),
    ({"method": "lshbloom", "expected_docs": 5000},
     ["--method", "lshbloom", "--expected-docs", "5000"]),
    ({"num_perm": 64, "ngram": 3, "profile": "robust", "seed": 99,
      "hash_family": "mmh3", "drop_empty": True},
     ["--num-perm", "64", "--ngram", "3", "--profile", "robust", "--seed",
      "99", "--hash", "mmh3", "--drop-empty"]),
]


@pytest.mark.parametrize("options,flags", SETTINGS)
def test_keeps_what_the_cli_keeps(options, flags, tmp_path):
    records = corpus()
    run = neardup.dedup(records, **options)
    kept = [r["id"] for r in run]
    cli_kept, cli_clusters = cli_dedup(records, tmp_path, *flags)
    assert kept == cli_kept
    assert 0 < len(kept) < len(records)
    if cli_clusters is None:
        with pytest.raises(ValueError, match="lshbloom"):
            run.clusters
    else:
        assert [c.__dict__ for c in run.clusters] == [
            {k: c[k] for k in ("representative", "members", "size",
                               "mean_similarity")} for c in cli_clusters]
    assert run.stats.total == len(records)
    assert run.stats.unique == len(kept)


def pages(kind: str) -> List[Dict[str, Any]]:
    """The corpus as HTML or Markdown whose markup differs from record to
    record: only extraction makes the copies copies. Record 40 cannot be
    parsed (HTML nested deeper than the parser takes)."""
    records = corpus(600, seed=5)
    for record in records:
        n, text = record["id"], record["text"]
        if kind == "text/html":
            record["text"] = (f"<html><head><title>page {n}</title><script>"
                              f"var seen = {n * 7919};</script></head><body>"
                              f"<p class=c{n}>{text}</p></body></html>")
        else:
            record["text"] = f"# Page {n}\n\n**{text}** [link](http://x/{n})"
    if kind == "text/html":
        records[40]["text"] = "<div>" * 1100
    return records


@pytest.mark.parametrize("kind", ["text/html", "text/markdown",
                                  "text/html; charset=utf-8"])
def test_extracts_a_content_type_as_the_cli_does(kind, tmp_path):
    records = pages(kind.split(";")[0])
    run = neardup.dedup(records, content_type=kind, skip_invalid=True)
    kept = [r["id"] for r in run]
    cli_kept, cli_clusters = cli_dedup(records, tmp_path, "--content-type",
                                       kind, "--skip-invalid")
    assert kept == cli_kept
    assert [c.__dict__ for c in run.clusters] == [
        {k: c[k] for k in ("representative", "members", "size",
                           "mean_similarity")} for c in cli_clusters]
    assert run.stats.invalid == (1 if kind.startswith("text/html") else 0)
    # Read as plain text, the markup keeps some copies apart.
    as_text = [r["id"] for r in neardup.dedup(records, skip_invalid=True)]
    assert [i for i in kept if i != 40] != [i for i in as_text if i != 40]
    if kind.startswith("text/html"):
        assert 40 not in kept
        with pytest.raises(ValueError, match="record 40: text/html"):
            list(neardup.dedup(records, content_type=kind))


def test_content_types_it_cannot_read_are_refused():
    with pytest.raises(ValueError, match="child process"):
        list(neardup.dedup(["%PDF-1.4"], content_type="application/pdf"))
    with pytest.raises(ValueError, match="text/markdown"):
        list(neardup.dedup(["x"], content_type="image/png"))
    with pytest.raises(TypeError, match="content_type"):
        neardup.dedup(["x"], content_type=None)  # type: ignore[arg-type]


def test_threads_and_batches_change_nothing():
    records = corpus(900, seed=3)
    runs = [neardup.dedup(records, threads=t, batch_size=b)
            for t, b in ((1, 2048), (2, 7), (0, 1), (2, 300))]
    kept = [[r["id"] for r in run] for run in runs]
    assert all(k == kept[0] for k in kept)
    assert all(run.clusters == runs[0].clusters for run in runs)


def test_yields_the_records_themselves_lazily():
    records = corpus(300)
    taken = []

    def source() -> Iterator[Dict[str, Any]]:
        for r in records:
            taken.append(r["id"])
            yield r

    run = neardup.dedup(source(), batch_size=50)
    first = next(run)
    assert first is records[0]
    assert len(taken) == 50  # one batch read, no more
    rest = list(run)
    assert len(taken) == 300
    assert all(r in records for r in rest)


class Row(collections.abc.Mapping):
    """A mapping that is not a dict, as a Hugging Face row can be."""

    def __init__(self, values: Dict[str, Any]) -> None:
        self._values = values

    def __getitem__(self, key: str) -> Any:
        return self._values[key]

    def __iter__(self):
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)


def test_str_bytes_and_mappings_are_the_same_records():
    records = corpus(600)
    by_dict = [r["id"] for r in neardup.dedup(records)]
    texts = [r["text"] for r in records]
    by_str = list(neardup.dedup(texts))
    by_bytes = list(neardup.dedup([t.encode() for t in texts]))
    by_row = [r["id"] for r in neardup.dedup(Row(r) for r in records)]
    by_field = [r["id"] for r in neardup.dedup(
        [{"id": r["id"], "body": r["text"]} for r in records], field="body")]
    assert by_str == [texts[i] for i in by_dict]
    assert by_bytes == [texts[i].encode() for i in by_dict]
    assert by_row == by_dict == by_field


def test_a_record_without_text_stops_after_the_ones_before_it():
    records = [{"text": f"alpha beta gamma {i} delta"} for i in range(10)]
    records[6] = {"body": "no text field"}
    run = neardup.dedup(records, batch_size=4)
    got = []
    with pytest.raises(ValueError, match=r'record 6: no field "text" '
                                         r'\(skip_invalid=True'):
        for r in run:
            got.append(r)
    assert got == records[:6]
    assert list(run) == []  # ended

    bad = [{"text": "fine text here"}, {"text": 5}, {"text": "x\ud800y"},
           b"\xff\xfe not utf-8", {"text": "another fine text"}]
    run = neardup.dedup(bad, skip_invalid=True)
    assert list(run) == [bad[0], bad[4]]
    assert run.stats.invalid == 3 and run.stats.total == 5
    for record, why in ((bad[1], 'field "text" is not a string'),
                        (bad[2], "lone surrogate"), (bad[3], "UTF-8")):
        with pytest.raises(ValueError, match=why):
            list(neardup.dedup([record]))


def test_a_record_of_another_type_is_a_type_error():
    run = neardup.dedup(["one two three four five", 17, "six"])
    assert next(run) == "one two three four five"
    with pytest.raises(TypeError, match="record 1 is a int"):
        next(run)
    with pytest.raises(TypeError, match="not one record"):
        neardup.dedup("a text, not records")


@pytest.mark.parametrize("options,message", [
    ({"threshold": 1.5}, "threshold"),
    ({"method": "lshbloom", "verification": "exact"}, "cannot verify"),
    ({"method": "suffix-array"}, "method must be one of"),
    ({"method": "minhash-lsh", "winnow_window": 9}, "perceptual only"),
    ({"num_perm": 100}, "num_perm|64, 128"),
    ({"bands": 7}, "does not divide"),
    ({"tokenizer": "letters"}, "tokenizer"),
    ({"profile": "loud"}, "profile"),
    ({"batch_size": 0}, "batch_size"),
    ({"seed": -1}, "seed"),
    ({"threads": 1000}, "threads"),
    ({"bits": 32, "method": "simhash", "simhash_variant": "newsbot"},
     "must be 64"),
    ({"evidence_bits": 16}, "evidence-bits must be 32 or 64"),
    ({"normalization": "nfd"}, "nfd"),
    ({"case_fold": "upper"}, "upper"),
    ({"evidence_bits": 32, "verification": "estimate"}, "narrows"),
])
def test_bad_options_are_refused_before_any_record(options, message):
    def never() -> Iterator[str]:
        raise AssertionError("read")
        yield ""

    with pytest.raises(ValueError, match=message):
        list(neardup.dedup(never(), **options))


def test_canonicalizer_switches_decide_what_is_a_copy(tmp_path):
    """Each switch reaches the canonicalizer: texts that differ only in
    case, or by zero-width spaces, are copies by default and not with the
    switch that keeps the difference; the CLI agrees."""
    base = " ".join(f"word{i}" for i in range(60))
    spaced = " ".join(f"wo\u200brd{i}" for i in range(60))
    for other, options, flags in (
            (base.upper(), {"case_fold": "none"}, ["--case-fold", "none"]),
            (spaced, {"keep_format": True}, ["--keep-format"])):
        records = [{"id": 0, "text": base}, {"id": 1, "text": other}]
        assert [r["id"] for r in neardup.dedup(records)] == [0]
        kept = [r["id"] for r in neardup.dedup(records, **options)]
        assert kept == [0, 1]
        assert cli_dedup(records, tmp_path, *flags)[0] == kept


def test_stats_name_the_method():
    run = neardup.dedup(corpus(300), method="simhash")
    list(run)
    stats = run.stats
    assert (stats.method, stats.verification) == ("simhash", "exact")
    assert stats.duplicates == stats.total - stats.unique
    assert stats.input_bytes == sum(
        len(r["text"].encode()) for r in corpus(300))


def test_skipped_records_number_as_the_cli_numbers_them(tmp_path):
    records = corpus(600, seed=5)
    for i in (3, 40, 41, 299):
        records[i] = {"id": records[i]["id"], "body": "no text field"}
    records[77] = {"id": 77, "text": 12}
    run = neardup.dedup(records, skip_invalid=True)
    kept = [r["id"] for r in run]
    cli_kept, cli_clusters = cli_dedup(records, tmp_path, "--skip-invalid")
    assert kept == cli_kept
    assert [c.__dict__ for c in run.clusters] == [
        {k: c[k] for k in ("representative", "members", "size",
                           "mean_similarity")} for c in cli_clusters]
    assert run.stats.invalid == 5


def test_the_kept_records_are_the_same_objects():
    records = corpus(200)
    assert all(any(r is x for x in records) for r in neardup.dedup(records))


def test_a_defaultdict_is_read_without_adding_the_field():
    import collections
    record = collections.defaultdict(str, {"id": 1})
    with pytest.raises(ValueError, match='no field "text"'):
        list(neardup.dedup([record]))
    assert "text" not in record


def test_an_error_of_the_source_comes_after_the_records_before_it():
    def source() -> Iterator[str]:
        yield "alpha beta gamma delta epsilon zeta"
        yield "one two three four five six seven"
        raise OSError("the disk went away")

    run = neardup.dedup(source(), batch_size=10)
    assert next(run) == "alpha beta gamma delta epsilon zeta"
    assert next(run) == "one two three four five six seven"
    with pytest.raises(OSError, match="disk"):
        next(run)
    assert list(run) == []

    class Broken(collections.abc.Mapping):
        def __getitem__(self, key):
            raise RuntimeError("broken row")

        def __iter__(self):
            return iter(())

        def __len__(self):
            return 0

    run = neardup.dedup(["fine text with words", Broken(), "more"])
    assert next(run) == "fine text with words"  # decided before it
    with pytest.raises(RuntimeError, match="broken row"):
        next(run)
    assert list(run) == []  # ended, no batch silently skipped


@pytest.mark.parametrize("options", [
    {"bands": 2.5}, {"seed": 1.0}, {"expected_docs": 10.0},
    {"simhash_variant": None}, {"field": 3}, {"threshold": "0.8"},
    {"verification": 1}, {"threads": True}])
def test_options_of_the_wrong_type_are_type_errors(options):
    with pytest.raises(TypeError, match="takes"):
        neardup.dedup(["a text"], **options)


def test_one_record_is_not_records():
    with pytest.raises(TypeError, match="not one record"):
        neardup.dedup({"text": "a dict is one record"})
