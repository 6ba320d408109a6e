"""neardup.MinHash: datasketch's API over neardup's token hashing."""

import copy
import pickle

import pytest

import neardup

WORDS_A = "the quick brown fox jumps over the lazy dog and runs away".split()
WORDS_B = "the quick brown fox jumps over the lazy cat and runs away".split()


def minhash(words, **kwargs):
    m = neardup.MinHash(**kwargs)
    m.update_batch(w.encode() if isinstance(w, str) else w for w in words)
    return m


def test_update_and_update_batch_agree_in_any_order():
    one_by_one = neardup.MinHash()
    for word in reversed(WORDS_A):
        one_by_one.update(word.encode())
    assert one_by_one == minhash(WORDS_A)
    assert minhash(WORDS_A) != minhash(WORDS_B)


def test_str_tokens_hash_as_utf8():
    as_str = neardup.MinHash()
    as_str.update_batch(["café", "ß"])
    assert as_str == minhash([b"caf\xc3\xa9", b"\xc3\x9f"])
    with pytest.raises(TypeError, match="bytes, bytearray or str"):
        neardup.MinHash().update(3)
    with pytest.raises(TypeError, match="iterable of tokens"):
        neardup.MinHash().update_batch(b"abc")


def test_jaccard_estimates_the_set_jaccard():
    a, b = set(WORDS_A), set(WORDS_B)
    truth = len(a & b) / len(a | b)
    estimate = minhash(WORDS_A, num_perm=256).jaccard(
        minhash(WORDS_B, num_perm=256))
    assert abs(estimate - truth) < 0.1
    assert minhash(WORDS_A).jaccard(minhash(WORDS_A)) == 1.0


def test_jaccard_refuses_other_parameters():
    with pytest.raises(ValueError, match="permutations"):
        minhash(WORDS_A, num_perm=64).jaccard(minhash(WORDS_A))
    with pytest.raises(ValueError, match="seeds"):
        minhash(WORDS_A, seed=2).jaccard(minhash(WORDS_A))


def test_merge_is_the_union():
    merged = minhash(WORDS_A[:5])
    merged.merge(minhash(WORDS_A[5:]))
    assert merged == minhash(WORDS_A)


def test_empty_clear_copy_len():
    m = neardup.MinHash(num_perm=64)
    assert m.is_empty() and len(m) == 64
    m.update(b"x")
    assert not m.is_empty()
    c = m.copy()
    assert c == m and copy.deepcopy(m) == m
    m.clear()
    assert m.is_empty() and not c.is_empty()


def test_count_estimates_distinct_tokens():
    m = minhash([f"token{i}" for i in range(1000)], num_perm=256)
    assert 800 < m.count() < 1250


def test_digest_and_hashvalues_as_numpy():
    np = pytest.importorskip("numpy")
    m = minhash(WORDS_A)
    digest = m.digest()
    assert isinstance(digest, np.ndarray) and digest.dtype == np.uint64
    view = m.hashvalues
    view[0] = 7  # a view: no copy
    assert m.hashvalues[0] == 7 and digest[0] != 7
    again = neardup.MinHash(hashvalues=digest)
    assert again.num_perm == 128 and list(again.digest()) == list(digest)


def test_hashvalues_must_be_unsigned_64_bit_integers():
    for bad in [[1, -1], [2**64], [1.5], ["1"]]:
        with pytest.raises(ValueError, match="hashvalues must be integers"):
            neardup.MinHash(hashvalues=bad)
    np = pytest.importorskip("numpy")
    with pytest.raises(ValueError, match="hashvalues must be integers"):
        neardup.MinHash(hashvalues=np.array([1, -1], dtype=np.int64))
    with pytest.raises(ValueError, match="one-dimensional"):
        neardup.MinHash(hashvalues=np.zeros((2, 2), dtype=np.uint64))
    assert neardup.MinHash(hashvalues=np.array([1, 2])).digest().tolist() == [
        1, 2]


def test_bytearray_tokens_are_copied_before_the_gil_is_released():
    m = neardup.MinHash()
    token = bytearray(b"abc")
    m.update_batch([token, token])
    expected = neardup.MinHash()
    expected.update(b"abc")
    assert m == expected
    assert neardup.MinHash.bulk([[bytearray(b"abc")]]) == [expected]
    big = [bytearray(b"abc")] * 5000  # past the in-place limit: copied
    m = neardup.MinHash()
    m.update_batch(big)
    assert m == expected


def test_digest_from_many_threads_at_first_use():
    import threading
    m = minhash(WORDS_A)
    results = []
    threads = [threading.Thread(target=lambda: results.append(m.digest()))
               for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 8


def test_minhash_texts_on_more_threads_than_cores():
    texts = [f"document number {i} says the same thing as its neighbours do"
             for i in range(300)]
    assert neardup.minhash_texts(texts, threads=400) == [
        neardup.minhash_text(t) for t in texts]
    assert neardup.minhash_texts(iter(texts[:3]), threads=1, num_perm=64) == [
        neardup.minhash_text(t, num_perm=64) for t in texts[:3]]
    with pytest.raises(ValueError, match="text 1: empty document"):
        neardup.minhash_texts(["one two three", "  "])


def test_pickle_round_trips():
    m = minhash(WORDS_A, num_perm=64, seed=9, hash_family="mmh3-x64-128")
    back = pickle.loads(pickle.dumps(m))
    assert back == m and back.seed == 9 and back.hash_family == "mmh3-x64-128"


def test_bulk_equals_one_by_one():
    documents = [[f"w{(i * 7 + j) % 50}" for j in range(30)]
                 for i in range(200)]
    documents.append(tuple(f"t{j}" for j in range(6000)))  # GIL released
    bulk = neardup.MinHash.bulk(iter(documents), num_perm=64)
    assert bulk == [minhash(d, num_perm=64) for d in documents]
    with pytest.raises(TypeError, match="not one bytes or str"):
        neardup.MinHash.bulk(["a document, not its tokens"])


def test_unsupported_datasketch_arguments_say_why():
    with pytest.raises(TypeError, match="hash_family"):
        neardup.MinHash(hashfunc=hash)
    with pytest.raises(ValueError, match="num_perm"):
        neardup.MinHash(num_perm=0)
    with pytest.raises(ValueError, match="hash family"):
        neardup.MinHash(hash_family="sha1")


def test_minhash_text_is_the_collections_signature():
    text = "the committee approved the budget for the new school year"
    m = neardup.minhash_text(text)
    assert m.num_perm == 128
    # Canonicalization first: case and fullwidth forms do not matter.
    assert neardup.minhash_text(text.upper()) == m
    assert neardup.minhash_text(text, ngram=1) != m
    with pytest.raises(ValueError, match="empty document"):
        neardup.minhash_text("   ")


def test_canonicalize():
    assert neardup.canonicalize("Ｆﬁ HELLO") == "ffi hello"
    with pytest.raises(ValueError, match="profile"):
        neardup.canonicalize("x", profile="nope")


def test_keep_set_gives_the_true_jaccard():
    a = [f"t{i}" for i in range(0, 300)]
    b = [f"t{i}" for i in range(100, 450)]
    ma = neardup.MinHash(keep_set=True)
    for token in a:
        ma.update(token)  # one at a time: the set is sorted when read
    mb = neardup.MinHash.bulk([b], keep_set=True)[0]
    assert ma.keep_set and not neardup.MinHash().keep_set
    assert ma.jaccard(mb, exact=True) == pytest.approx(200 / 450)
    assert abs(ma.jaccard(mb) - 200 / 450) < 0.15  # the estimate
    with pytest.raises(ValueError, match="keep_set=True"):
        ma.jaccard(neardup.MinHash(), exact=True)
    # merge is the union, copies and pickles keep the set, clear empties it.
    union = ma.copy()
    union.merge(mb)
    whole = neardup.MinHash(keep_set=True)
    whole.update_batch(set(a) | set(b))
    assert union == whole and union.jaccard(whole, exact=True) == 1.0
    back = pickle.loads(pickle.dumps(ma))
    assert back.keep_set and back.jaccard(mb, exact=True) == pytest.approx(
        200 / 450)
    with pytest.raises(ValueError, match="token set"):
        ma.copy().merge(neardup.MinHash())
    ma.clear()
    assert ma.is_empty() and ma.jaccard(neardup.MinHash(keep_set=True),
                                        exact=True) == 1.0
    with pytest.raises(ValueError, match="hashvalues"):
        neardup.MinHash(hashvalues=mb.digest(), keep_set=True)
    same = mb.copy()
    same.merge(same)  # the union with itself: unchanged
    assert same.jaccard(mb, exact=True) == 1.0 and same == mb


def test_keep_set_updates_one_token_at_a_time_in_linear_time():
    import time
    m = neardup.MinHash(num_perm=64, keep_set=True)
    start = time.perf_counter()
    for i in range(200000):
        m.update(b"t%d" % i)
    # Quadratic growth (a reallocation per update) took minutes here.
    assert time.perf_counter() - start < 30
    other = neardup.MinHash(num_perm=64, keep_set=True)
    other.update_batch(b"t%d" % i for i in range(100000))
    assert m.jaccard(other, exact=True) == pytest.approx(0.5)


def test_minhash_text_keeps_the_shingle_set_compare_uses():
    a = ("The committee approved the budget for the new library on Tuesday "
         "after a long debate about the cost of the building and its staff")
    b = a.replace("Tuesday", "Monday").replace("long", "short")
    ma = neardup.minhash_text(a, keep_set=True)
    mb, = neardup.minhash_texts([b], keep_set=True)
    assert ma.jaccard(mb, exact=True) == pytest.approx(
        neardup.compare(a, b).exact_jaccard)
    assert not neardup.minhash_text(a).keep_set
