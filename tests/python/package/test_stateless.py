"""neardup.fingerprint and neardup.compare: txtfp's golden vectors through
Python, and the same answers as the CLI's `fingerprint` and `compare`."""

import hashlib
import json
import os
import subprocess

import pytest

import neardup

FOX = "the quick brown fox jumps over the lazy dog"


def test_txtfp_golden_vectors():
    # tests/core/golden_test.cc's, byte for byte (txtfp 0.2.x/0.3.x).
    sha = lambda b: hashlib.sha256(b).hexdigest()
    k5 = neardup.fingerprint(FOX, kind="minhash").minhash
    assert len(k5) == 1032 and sha(k5) == (
        "78da2fa41a0534f191035e663b8a9f2a364421208a73c0165b3ba4d9adae8ca2")
    assert sha(neardup.fingerprint(FOX, kind="minhash", ngram=3).minhash) == (
        "1502bd9e733e6c96336d6f9f1b9239b24abdddae7e62e2aaffd3fa11f3d1b4d1")
    assert sha(neardup.fingerprint(FOX, kind="minhash",
                                   hash_family="mmh3-x64-128").minhash) == (
        "9f96c3f9cde0e5f69989dbac21c2c2f65abf30b2f871c08ea3ded0c5b21f705b")
    simhash = neardup.fingerprint(FOX, kind="simhash")
    assert f"{simhash.simhash:016x}" == "ce0e315a6cc6f940"
    assert f"{simhash.simhash_config_hash:016x}" == "cd2b56b620c8dd97"
    assert f"{neardup.fingerprint('Hello World', kind='simhash').simhash:016x}" \
        == "18064d31b1181001"
    assert f"{neardup.fingerprint(FOX).minhash_config_hash:016x}" == (
        "1ffc8214c1e9e9db")
    # minhash_text is the same signature.
    assert neardup.minhash_text(FOX).digest().tobytes() == k5[8:]


def cli(*args):
    binary = os.environ.get("NEARDUP")
    if not binary:
        pytest.skip("NEARDUP is not set (the suite sets it)")
    # Not the ASan runtime the sanitizer build preloads into python3: an
    # instrumented neardup carries its own.
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    run = subprocess.run([binary, *args], capture_output=True, text=True,
                         check=True, env=env)
    return json.loads(run.stdout)


@pytest.mark.parametrize("kind,flags", [
    ("minhash", {}), ("simhash", {}), ("simhash", {"weighting": "uniform"}),
    ("tlsh", {}), ("tlsh-raw", {}), ("newsbot", {}), ("newsbot", {"bits": 128}),
    ("perceptual", {}), ("perceptual", {"winnow_window": 7})])
def test_the_same_as_the_cli(kind, flags, tmp_path):
    text = " ".join([FOX] * 8)
    path = tmp_path / "fox.txt"
    path.write_text(text)
    cli_kind = "tlsh" if kind == "tlsh-raw" else kind
    args = ["fingerprint", "--kind", cli_kind, "--output-format", "json"]
    args += ["--raw"] if kind == "tlsh-raw" else []
    for name, value in flags.items():
        args += ["--" + name.replace("_", "-"), str(value)]
    printed = cli(*args, str(path))
    ours = neardup.fingerprint(text, kind=kind, **flags)
    if kind in ("minhash", "perceptual"):
        slots = [int.from_bytes(ours.minhash[8 + 8 * i:16 + 8 * i], "little")
                 for i in range(128)]
        assert [f"{s:016x}" for s in slots] == printed["slots"]
        assert f"{ours.minhash_config_hash:016x}" == printed["config_hash"]
    elif kind == "simhash":
        assert f"{ours.simhash:016x}" == printed["simhash"]
        assert f"{ours.simhash_config_hash:016x}" == printed["config_hash"]
    elif kind.startswith("tlsh"):
        assert ours.tlsh == printed["tlsh"]
        assert f"{ours.tlsh_config_hash:016x}" == printed["config_hash"]
    else:
        width = ours.newsbot_bits // 4
        assert f"{ours.newsbot:0{width}x}" == printed["simhash"]
        assert ours.newsbot_tokens == printed["tokens"]
    assert ours.algorithm == printed["algorithm"]


def test_compare_as_the_cli_and_explain(tmp_path):
    a = " ".join([FOX, "and then it rested in the warm afternoon sun"] * 3)
    b = a.replace("warm", "cold", 1)
    (tmp_path / "a.txt").write_text(a)
    (tmp_path / "b.txt").write_text(b)
    ours = neardup.compare(a, b, explain=True)
    printed = cli("compare", "--json", str(tmp_path / "a.txt"),
                  str(tmp_path / "b.txt"))
    assert printed["exact_jaccard"] == pytest.approx(ours.exact_jaccard,
                                                     abs=1e-6)
    assert printed["estimated_jaccard"] == pytest.approx(
        ours.estimated_jaccard)
    assert printed["hamming"] == ours.hamming_distance
    assert printed["cosine_estimate"] == pytest.approx(ours.cosine_estimate)
    assert printed["tlsh_distance"] == ours.kept_distances["tlsh"]
    assert ours.passages and all(
        a[p[0]:p[1]] == b[p[2]:p[3]] for p in ours.passages)


def test_passages_index_the_str_not_its_bytes():
    tail = " ".join([FOX, "and then it rested in the warm afternoon sun"])
    a = "Ünïcödé façade — " + tail
    b = "ßtraße 東京 " + tail
    passages = neardup.compare(a, b, explain=True).passages
    assert passages and all(
        a[p[0]:p[1]] == b[p[2]:p[3]] for p in passages)
    assert any(a[p[0]:p[1]].startswith("the quick") for p in passages)


def test_bad_settings_and_texts_say_why():
    with pytest.raises(ValueError, match="kind must be one of"):
        neardup.fingerprint(FOX, kind="md5")
    with pytest.raises(ValueError, match="empty document"):
        neardup.fingerprint("   ", kind="minhash")
    with pytest.raises(ValueError, match="kind 'all' only"):
        neardup.fingerprint(FOX, kind="minhash", simhash=True)
    with pytest.raises(ValueError, match="bits applies to kind 'newsbot'"):
        neardup.fingerprint(FOX, kind="minhash", bits=32)
    with pytest.raises(ValueError, match="bits must be"):
        neardup.fingerprint(FOX, kind="newsbot", bits=7)
    with pytest.raises(ValueError, match="winnow_window applies"):
        neardup.fingerprint(FOX, winnow_window=0)
    with pytest.raises(ValueError, match="winnow_window must be"):
        neardup.fingerprint(FOX, kind="perceptual", winnow_window=0)
    with pytest.raises(ValueError, match="seed"):
        neardup.fingerprint(FOX, seed=-1)
    with pytest.raises(TypeError, match="list of family names"):
        neardup.fingerprint(FOX, keep="tlsh")
    with pytest.raises(ValueError, match="TLSH needs at least 50 bytes"):
        neardup.fingerprint("short", kind="tlsh")
    # A collection's kept TLSH: a reason, not an error.
    kept = neardup.fingerprint("short text", keep=["tlsh"])
    assert kept.minhash is not None and "tlsh" in kept.kept_unavailable
