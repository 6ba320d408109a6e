"""neardup.MinHashLSH: datasketch's API over core's MinHashLshIndex."""

import pickle

import pytest

import neardup


def words(seed, n=60, vocab=400):
    state = seed * 2654435761 + 1
    out = []
    for _ in range(n):
        state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
        out.append(f"w{(state >> 33) % vocab}")
    return out


def minhash(tokens, num_perm=128):
    m = neardup.MinHash(num_perm=num_perm)
    m.update_batch(t.encode() for t in tokens)
    return m


def edited(tokens, k):
    return tokens[:-k] + [f"edit{i}" for i in range(k)]


def datasketch_params(threshold, num_perm, fp_weight, fn_weight):
    """datasketch's _optimal_param with its scipy-less midpoint rule: an
    independent integration of the same choice."""
    def integrate(f, a, b, p=0.001):
        area, x = 0.0, a
        while x < b:
            area += f(x + 0.5 * p) * p
            x += p
        return area

    best, opt = float("inf"), (0, 0)
    for b in range(1, num_perm + 1):
        for r in range(1, num_perm // b + 1):
            fp = integrate(lambda s: 1 - (1 - s ** r) ** b, 0.0, threshold)
            fn = integrate(lambda s: (1 - s ** r) ** b, threshold, 1.0)
            error = fp * fp_weight + fn * fn_weight
            if error < best:
                best, opt = error, (b, r)
    return opt


@pytest.mark.parametrize("threshold,weights", [
    (0.5, (0.5, 0.5)), (0.8, (0.5, 0.5)), (0.9, (0.5, 0.5)),
    (0.7, (0.2, 0.8))])
def test_bands_and_rows_are_datasketchs_choice(threshold, weights):
    lsh = neardup.MinHashLSH(threshold=threshold, num_perm=64,
                             weights=weights)
    assert (lsh.b, lsh.r) == datasketch_params(threshold, 64, *weights)
    assert lsh.threshold == threshold and lsh.h == 64


def key_that_fails_late():
    """A key class whose instances hash twice (insert_many's checks), then
    raise: while being recorded, after the index has taken the batch."""
    class KeyThatFailsLate:
        calls = 0

        def __hash__(self):
            KeyThatFailsLate.calls += 1
            if KeyThatFailsLate.calls > 2:
                raise RuntimeError("hash failed")
            return 1

    return KeyThatFailsLate


def test_finds_near_copies_and_not_strangers():
    lsh = neardup.MinHashLSH(threshold=0.7)
    docs = {f"doc{i}": words(i) for i in range(100)}
    for key, tokens in docs.items():
        lsh.insert(key, minhash(tokens))
    found = lsh.query(minhash(edited(docs["doc7"], 3)))
    assert "doc7" in found and len(found) < 5
    scored = lsh.query(minhash(docs["doc7"]), with_scores=True)
    assert scored[0] == ("doc7", 1.0)
    assert all(a[1] >= b[1] for a, b in zip(scored, scored[1:]))
    assert lsh.query(minhash(docs["doc7"]), min_score=0.99) == ["doc7"]


def test_query_many_answers_as_query_does():
    lsh = neardup.MinHashLSH(threshold=0.7)
    probes = [minhash(words(i)) for i in range(60)]
    lsh.insert_many((i, m) for i, m in enumerate(probes[:50]))
    for kwargs in [{}, {"with_scores": True}, {"min_score": 0.9}]:
        assert lsh.query_many(iter(probes), **kwargs) == [
            lsh.query(m, **kwargs) for m in probes]
    with pytest.raises(TypeError, match="takes MinHashes"):
        lsh.query_many([probes[0], None])

    def inserting_as_it_goes():  # the iterable writes to the same index
        for i in range(50, 60):
            lsh.insert(i, probes[i])
            yield probes[i]

    assert all(i in answer for i, answer in
               zip(range(50, 60), lsh.query_many(inserting_as_it_goes())))
    with pytest.raises(ValueError, match="num_perm"):
        lsh.query_many([neardup.MinHash(num_perm=64)])


def test_many_at_once_span_several_chunks():
    # insert_many and query_many hand the index 256 MinHashes at a time.
    lsh = neardup.MinHashLSH(threshold=0.7, num_perm=64)
    sigs = [minhash(words(i), num_perm=64) for i in range(700)]
    lsh.insert_many((i, m) for i, m in enumerate(sigs[:600]))
    assert len(lsh) == 600
    assert lsh.query_many(sigs) == [lsh.query(m) for m in sigs]
    assert all(i in found for i, found in enumerate(lsh.query_many(sigs[:600])))

    KeyThatFailsLate = key_that_fails_late()
    with pytest.raises(RuntimeError, match="hash failed"):
        lsh.insert_many([(f"new{i}", sigs[i]) for i in range(600, 700)] +
                        [(f"late{i}", sigs[i % 600]) for i in range(400)] +
                        [(KeyThatFailsLate(), sigs[0])],
                        check_duplication=False)
    assert KeyThatFailsLate.calls == 3  # failed once every chunk was in
    assert len(lsh) == 600
    assert all("new" not in str(key) and "late" not in str(key)
               for found in lsh.query_many(sigs) for key in found)
    assert all(i in found for i, found in enumerate(lsh.query_many(sigs[:600])))


def test_a_key_given_twice_keeps_its_first_object():
    lsh = neardup.MinHashLSH(threshold=0.5, num_perm=64)
    a, b = minhash(words(1), num_perm=64), minhash(words(2), num_perm=64)
    lsh.insert_many([(1, a), (1.0, b)], check_duplication=False)
    [key] = lsh.query(b)
    assert type(key) is int and lsh.query(a) == []


def test_scores_are_minhash_jaccard():
    lsh = neardup.MinHashLSH(threshold=0.5)
    a, b = minhash(words(1)), minhash(edited(words(1), 10))
    lsh.insert("a", a)
    [(key, score)] = lsh.query(b, with_scores=True)
    assert key == "a" and score == a.jaccard(b)


def test_keys_insert_remove_contains():
    lsh = neardup.MinHashLSH(threshold=0.5, num_perm=64)
    m = minhash(words(3), num_perm=64)
    for key in [None, ("t", 1), 42, "s"]:
        lsh.insert(key, m)
    assert None in lsh and ("t", 1) in lsh and len(lsh) == 4
    with pytest.raises(ValueError, match="already exists"):
        lsh.insert(42, m)
    lsh.insert(42, minhash(words(4), num_perm=64), check_duplication=False)
    assert 42 not in lsh.query(m) and len(lsh) == 4
    lsh.remove(None)
    assert None not in lsh and None not in lsh.query(m)
    with pytest.raises(ValueError, match="does not exist"):
        lsh.remove(None)
    lsh.insert("new", m)  # takes the removed key's place
    assert sorted(map(str, lsh.query(m))) == ["('t', 1)", "new", "s"]
    with pytest.raises(TypeError):
        lsh.insert(["unhashable"], m)


def test_refuses_other_widths_and_seeds():
    lsh = neardup.MinHashLSH(num_perm=128)
    with pytest.raises(ValueError, match="num_perm 128"):
        lsh.insert("a", minhash(words(1), num_perm=64))
    lsh.insert("a", minhash(words(1)))
    other = neardup.MinHash(seed=5)
    other.update(b"x")
    with pytest.raises(ValueError, match="another seed"):
        lsh.insert("b", other)
    with pytest.raises(ValueError, match="another seed"):
        lsh.query(other)


def test_insert_many_is_all_or_nothing():
    lsh = neardup.MinHashLSH(threshold=0.5)
    lsh.insert("x", minhash(words(1)))
    items = [(f"k{i}", minhash(words(i + 10))) for i in range(50)]
    with pytest.raises(ValueError, match="already exists"):
        lsh.insert_many(items + [("x", minhash(words(2)))])
    assert len(lsh) == 1 and "k0" not in lsh
    with pytest.raises(TypeError, match="pairs"):
        lsh.insert_many([("k", None)])
    with pytest.raises(TypeError, match="pairs"):
        lsh.insert_many(["not a pair"])
    assert len(lsh) == 1
    lsh.insert_many(iter(items))  # any iterable: a generator, zip, items()
    assert len(lsh) == 51
    assert "k7" in lsh.query(minhash(words(17)))
    lsh.insert_many(zip(["z1", "z2"], [minhash(words(3)), minhash(words(4))]))
    assert "z2" in lsh.query(minhash(words(4)))


def test_a_failed_replace_is_undone():
    lsh = neardup.MinHashLSH(threshold=0.5, num_perm=64)
    before = minhash(words(1), num_perm=64)
    lsh.insert("a", before)
    other_seed = neardup.MinHash(num_perm=64, seed=9)
    other_seed.update(b"x")
    with pytest.raises(ValueError, match="another seed"):
        lsh.insert_many([("a", minhash(words(2), num_perm=64)),
                         ("b", other_seed)], check_duplication=False)
    assert lsh.query(before, with_scores=True) == [("a", 1.0)]
    assert "b" not in lsh

    KeyThatFailsLate = key_that_fails_late()
    with pytest.raises(RuntimeError, match="hash failed"):
        lsh.insert_many([("a", minhash(words(2), num_perm=64)),
                         (KeyThatFailsLate(), minhash(words(3), num_perm=64))],
                        check_duplication=False)
    assert lsh.query(before, with_scores=True) == [("a", 1.0)]
    assert len(lsh) == 1 and lsh.query(minhash(words(3), num_perm=64)) == []


def test_keys_removed_and_added_from_threads_stay_consistent():
    import threading
    lsh = neardup.MinHashLSH(threshold=0.5, num_perm=64)
    sigs = [minhash(words(i), num_perm=64) for i in range(400)]
    errors = []

    def writer(offset):
        try:
            for round_ in range(3):
                lsh.insert_many((f"{offset}-{i}", sigs[i])
                                for i in range(offset, 400, 4))
                for i in range(offset, 400, 4):
                    lsh.remove(f"{offset}-{i}")
        except Exception as error:  # reported below
            errors.append(error)

    def reader():
        for _ in range(200):
            for key, _ in lsh.query(sigs[5], with_scores=True):
                if key is None:
                    errors.append("a query named no key")

    threads = [threading.Thread(target=writer, args=(k,)) for k in range(4)]
    threads.append(threading.Thread(target=reader))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and len(lsh) == 0 and lsh.query(sigs[5]) == []


def test_insertion_session():
    lsh = neardup.MinHashLSH(threshold=0.5)
    with lsh.insertion_session(buffer_size=7) as session:
        for i in range(20):
            session.insert(i, minhash(words(i)))
    assert len(lsh) == 20 and 5 in lsh.query(minhash(words(5)))
    with pytest.raises(ValueError):
        lsh.insertion_session(buffer_size=0)


def test_insertion_session_refuses_a_duplicate_at_once():
    lsh = neardup.MinHashLSH(threshold=0.5)
    lsh.insert("old", minhash(words(1)))
    with lsh.insertion_session(buffer_size=100) as session:
        session.insert("a", minhash(words(2)))
        with pytest.raises(ValueError, match="already exists"):
            session.insert("old", minhash(words(3)))
        with pytest.raises(ValueError, match="already exists"):
            session.insert("a", minhash(words(3)))
        with pytest.raises(ValueError, match="num_perm"):
            session.insert("b", neardup.MinHash(num_perm=64))
        session.insert("c", minhash(words(4)))
    assert len(lsh) == 3  # old, a and c: nothing good was dropped


def test_insertion_session_flushes_when_the_block_raises():
    lsh = neardup.MinHashLSH(threshold=0.5)
    with pytest.raises(RuntimeError):
        with lsh.insertion_session() as session:
            session.insert("a", minhash(words(2)))
            raise RuntimeError("the caller's")
    assert "a" in lsh  # as datasketch: what was inserted stays


def test_pickle_saves_and_loads_the_index():
    lsh = neardup.MinHashLSH(threshold=0.6, num_perm=64, weights=(0.3, 0.7))
    for i in range(30):
        lsh.insert(f"d{i}", minhash(words(i), num_perm=64))
    lsh.remove("d3")
    back = pickle.loads(pickle.dumps(lsh))
    assert (back.b, back.r, back.threshold, back.weights) == (
        lsh.b, lsh.r, 0.6, (0.3, 0.7))
    assert len(back) == 29 and "d3" not in back
    probe = minhash(words(8), num_perm=64)
    assert back.query(probe, with_scores=True) == lsh.query(
        probe, with_scores=True)


def test_malformed_pickle_states_raise_value_error():
    for state in [(), (2, 0.5, 64, 8, 8, (0.5, 0.5), None, []),
                  (1, 0.5, 64, 8, 8, (0.5, 0.5), None, [("k", b"x")]),
                  (1, 0.5, 64, 8, 8, (0.5, 0.5), (1, "xxh3-64"),
                   [("k", b"short")]),
                  (1, "x", 64, 8, 8, (0.5, 0.5), None, []),
                  (1, 0.5, 64, 8, 8, (0.5, 0.5), (), [("k", b"\0" * 512)]),
                  (1, 0.5, 64, 8, 8, (0.5, 0.5), (1, "xxh3-64"),
                   [(["unhashable"], b"\0" * 512)]),
                  (2, 0.5, 64, 8, 8, (0.5, 0.5), (1, "xxh3-64"),
                   [("k", b"\0" * 512, None)], "exact"),
                  (2, 5.0, 64, 8, 8, (0.5, 0.5), None, [], "exact")]:
        with pytest.raises(ValueError, match="not a neardup MinHashLSH"):
            neardup.MinHashLSH.__new__(neardup.MinHashLSH).__setstate__(state)
    m = neardup.MinHash()
    for state in [(1, "xxh3-64", b""), (1, "xxh3-64", b"123"),
                  (-1, "xxh3-64", b"12345678"), (1, "sha1", b"12345678"),
                  (1, "xxh3-64", b"\0" * 8 * 5000)]:
        with pytest.raises(ValueError, match="not a neardup MinHash"):
            neardup.MinHash.__new__(neardup.MinHash).__setstate__(state)


def test_bad_settings_say_why():
    with pytest.raises(ValueError, match="threshold"):
        neardup.MinHashLSH(threshold=1.5)
    with pytest.raises(ValueError, match="bands x rows"):
        neardup.MinHashLSH(num_perm=64, params=(10, 10))
    with pytest.raises(ValueError, match="in memory"):
        neardup.MinHashLSH(storage_config={"type": "redis"})
    assert neardup.MinHashLSH(num_perm=64, params=(8, 4)).b == 8


def exact_minhash(tokens, num_perm=128):
    m = neardup.MinHash(num_perm=num_perm, keep_set=True)
    m.update_batch(t.encode() for t in tokens)
    return m


def true_jaccard(a, b):
    return len(set(a) & set(b)) / len(set(a) | set(b))


def test_exact_verification_returns_keys_at_the_threshold_by_true_jaccard():
    docs = {f"d{i}": words(i, n=80, vocab=5000) for i in range(40)}
    base = docs["d5"]
    for k in (2, 6, 10, 16, 24):  # from just above to well below 0.7
        docs[f"e{k}"] = edited(base, k)
    lsh = neardup.MinHashLSH(threshold=0.7, num_perm=128,
                             verification="exact")
    assert lsh.verification == "exact"
    lsh.insert_many((key, exact_minhash(t)) for key, t in docs.items())
    found = lsh.query(exact_minhash(base), with_scores=True)
    expected = sorted(((key, true_jaccard(base, t)) for key, t in docs.items()
                       if true_jaccard(base, t) >= 0.7),
                      key=lambda pair: (-pair[1], pair[0]))
    assert [k for k, _ in found] == [k for k, _ in expected]
    assert [s for _, s in found] == pytest.approx([s for _, s in expected])
    assert len(found) >= 3  # d5, e2, e6 at least
    # Plain query: the same keys, best first; min_score moves the floor.
    assert lsh.query(exact_minhash(base)) == [k for k, _ in expected]
    assert [k for k, _ in lsh.query(exact_minhash(base), with_scores=True,
                                    min_score=0.99)] == ["d5"]
    assert lsh.query_many([exact_minhash(base)]) == [[k for k, _ in expected]]
    # The sets go with the index through pickle, and with a remove.
    back = pickle.loads(pickle.dumps(lsh))
    assert back.verification == "exact"
    assert back.query(exact_minhash(base), with_scores=True) == found
    back.remove("d5")
    assert "d5" not in back.query(exact_minhash(base))


def test_estimate_verification_filters_candidates_by_estimate():
    lsh = neardup.MinHashLSH(threshold=0.8, num_perm=128,
                             verification="estimate")
    base = words(3, n=80, vocab=5000)
    lsh.insert("same", minhash(base))
    lsh.insert("far", minhash(edited(base, 30)))
    scored = lsh.query(minhash(base), with_scores=True)
    assert scored == [("same", 1.0)]
    none = neardup.MinHashLSH(threshold=0.8, num_perm=128)
    assert none.verification == "none"


def test_exact_verification_ranks_ties_by_insertion_id():
    lsh = neardup.MinHashLSH(threshold=0.5, num_perm=64,
                             verification="exact")
    base = words(11, vocab=5000)
    for key in ("b", "a", "c"):  # equal sets: ties, in insertion order
        lsh.insert(key, exact_minhash(base, 64))
    assert lsh.query(exact_minhash(base, 64)) == ["b", "a", "c"]
    with pytest.raises(ValueError, match="threshold must be in"):
        neardup.MinHashLSH(threshold=1.5, num_perm=64, params=(8, 8),
                           verification="exact")


def test_exact_verification_needs_token_sets():
    lsh = neardup.MinHashLSH(threshold=0.5, verification="exact")
    with pytest.raises(ValueError, match="keep_set=True"):
        lsh.insert("a", minhash(words(1)))
    with pytest.raises(ValueError, match="keep_set=True"):
        lsh.query(minhash(words(1)))
    with pytest.raises(ValueError, match="keep_set=True"):
        lsh.insert_many([("b", exact_minhash(words(2))),
                         ("c", minhash(words(3)))])
    assert len(lsh) == 0  # all or nothing
    with pytest.raises(ValueError, match="verification must be"):
        neardup.MinHashLSH(verification="strict")


def test_a_replace_under_exact_verification_replaces_the_set():
    lsh = neardup.MinHashLSH(threshold=0.5, num_perm=64,
                             verification="exact")
    first, second = words(1, vocab=5000), words(2, vocab=5000)
    lsh.insert("k", exact_minhash(first, 64))
    lsh.insert("k", exact_minhash(second, 64), check_duplication=False)
    assert lsh.query(exact_minhash(second, 64), with_scores=True) == [
        ("k", 1.0)]
    assert lsh.query(exact_minhash(first, 64)) == []


def test_an_index_in_a_cycle_with_its_keys_is_collected():
    import gc
    import weakref

    class Key:
        """A key that refers back to the index it is a key of."""

        def __init__(self, lsh):
            self.lsh = lsh

        def __hash__(self):
            return id(self)

    lsh = neardup.MinHashLSH(threshold=0.5, num_perm=64)
    lsh.insert(Key(lsh), minhash(words(1), num_perm=64))
    alive = weakref.ref(lsh)
    del lsh
    gc.collect()
    assert alive() is None
