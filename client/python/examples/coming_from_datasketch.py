"""datasketch's MinHash LSH example, with `import neardup` for datasketch.

Run: PYTHONPATH=build/release/python python3 client/python/examples/coming_from_datasketch.py
"""

from neardup import MinHash, MinHashLSH

set1 = {"minhash", "is", "a", "probabilistic", "data", "structure", "for",
        "estimating", "the", "similarity", "between", "datasets"}
set2 = {"minhash", "is", "a", "probability", "data", "structure", "for",
        "estimating", "the", "similarity", "between", "documents"}
set3 = {"minhash", "is", "probability", "data", "structure", "for",
        "estimating", "the", "similarity", "between", "documents"}

m1, m2, m3 = MinHash(num_perm=128), MinHash(num_perm=128), MinHash(num_perm=128)
for d in set1:
    m1.update(d.encode("utf8"))
for d in set2:
    m2.update(d.encode("utf8"))
for d in set3:
    m3.update(d.encode("utf8"))

# Create an LSH index with the Jaccard threshold 0.5.
lsh = MinHashLSH(threshold=0.5, num_perm=128)
lsh.insert("m2", m2)
lsh.insert("m3", m3)
result = lsh.query(m1)
print("Approximate neighbours with Jaccard similarity > 0.5", result)

# What datasketch lacks: scores, best first; cheap deletes.
for key, score in lsh.query(m1, with_scores=True):
    print(f"{key}: estimated Jaccard {score:.3f}")
lsh.remove("m3")
assert "m3" not in lsh
