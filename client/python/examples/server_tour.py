"""The README's tour with a server: a collection, documents, a query, a
stream and an export against the neardupd at $NEARDUP_SERVER (or
127.0.0.1:50051; scripts/run.sh starts one there).

Run: PYTHONPATH=build/release/python python3 client/python/examples/server_tour.py
"""

import uuid

import neardup
from neardup.messages import FingerprintConfig

texts = [
    "The city council voted on Tuesday to extend the library's opening "
    "hours through the summer, citing record attendance at its reading "
    "programmes and a grant from the regional arts fund. The longer hours "
    "start next month and will be reviewed in the autumn, when the council "
    "sets the budget for the coming year and decides whether the pilot "
    "becomes permanent",
    "Rain is expected across the north on Friday, with clearer skies "
    "arriving over the weekend for most of the coast and the hills inland",
    "A local bakery has won the national bread prize for the third year "
    "running with a sourdough made from flour milled in the valley",
]
name = f"tour-{uuid.uuid4().hex[:8]}"  # a fresh collection every run

with neardup.Client() as client:
    print("health:", client.health())
    client.create_collection(name, config=FingerprintConfig(threshold=0.8))
    client.upsert(name, id="a1", text=texts[0])
    found = client.query(name, text=texts[0].replace("Tuesday", "Monday"))
    for match in found.matches:
        print("match:", match.id, round(match.similarity, 3),
              match.exact_jaccard)
    assert [m.id for m in found.matches] == ["a1"]

    results = list(client.upsert_many(
        name, ({"id": f"d{i}", "text": t} for i, t in enumerate(texts)),
        batch_size=2))
    assert [r.code for r in results] == [0, 0, 0], results
    answers = list(client.query_many(name, [texts[1], "nothing like it"]))
    print("query_many:", [[m.id for m in a.matches] for a in answers])
    assert [m.id for m in answers[0].matches] == ["d1"]
    assert answers[1].matches == []

    exported = sorted(document.id for document in client.export(name))
    print("export:", exported)
    assert exported == ["a1", "d0", "d1", "d2"]

    try:
        client.get(name, id="missing")
    except neardup.NotFound as e:
        print("typed error:", type(e).__name__, e.message)
    client.drop_collection(name)
