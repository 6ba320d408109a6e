"""neardup.dedup over records in memory: the kept records, the clusters
and the counters, as `neardup dedup` would give them for the same records
written as JSON lines.

Run: PYTHONPATH=build/release/python python3 client/python/examples/dedup_records.py
"""

from typing import Dict, List

import neardup

story = ("The city council voted on Tuesday to extend the library's opening "
         "hours through the summer, citing record attendance at its reading "
         "programmes and a grant from the regional arts fund. The longer "
         "hours start next month and will be reviewed in the autumn, when "
         "the council sets the budget for the coming year and decides "
         "whether the pilot becomes permanent")
records: List[Dict[str, str]] = [
    {"id": "a", "text": story},
    {"id": "b", "text": "Rain is expected across the north on Friday, with "
                        "clearer skies arriving over the weekend for most "
                        "of the coast and the hills inland"},
    {"id": "c", "text": story.replace("Tuesday", "Wednesday")},  # near copy
    {"id": "d", "text": story.upper()},  # the same after canonicalization
]

run = neardup.dedup(records, threshold=0.8)
kept = [record["id"] for record in run]  # the records themselves, lazily
print("kept:", kept)
for cluster in run.clusters:  # positions in the input
    removed = [records[i]["id"] for i in cluster.members[1:]]
    print(f"{records[cluster.representative]['id']} kept; removed {removed} "
          f"(mean similarity {cluster.mean_similarity:.3f})")
print(run.stats)

assert kept == ["a", "b"], kept
assert [c.members for c in run.clusters] == [[0, 2, 3]]

# Strings work too, and any iterable (a generator, a datasets.Dataset).
texts = (record["text"] for record in records)
assert len(list(neardup.dedup(texts, threshold=0.8))) == 2
