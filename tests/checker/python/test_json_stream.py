"""json_stream: streamed objects and arrays write the bytes json.dumps writes of their values."""

import io
import json
import unittest

from memfloor_pyfacts import json_stream
from memfloor_pyfacts.json_stream import Items, Members


def dumps(value) -> str:
    return json.dumps(value, separators=(",", ":"))


def document(n: int) -> Members:
    """An object whose members are plain values and streams, arrays longer than a batch."""
    return Members(iter([
        ("schema", "x/1"),
        ("empty", Items(iter([]))),
        ("items", Items({"i": i, "s": "é\"\n"} for i in range(n))),
        ("nested", Members(iter([("a", [1, 2]), ("b", Members(iter([]))),
                                 ("c", Items(iter(["z"])))]))),
        ("members", Members((f"k{i}", {"v": i}) for i in range(n))),
        ("last", None),
    ]))


class JsonStream(unittest.TestCase):
    def test_writes_what_dumps_writes_of_the_value(self):
        for n in (0, 1, 511, 512, 513, 2000):
            out = io.StringIO()
            json_stream.write(out, document(n))
            self.assertEqual(dumps(json_stream.value(document(n))), out.getvalue(), n)

    def test_value_drains_the_streams(self):
        self.assertEqual({"a": [1, 2], "b": {"c": 3}},
                         json_stream.value(Members(iter([("a", Items(iter([1, 2]))),
                                                         ("b", Members(iter([("c", 3)])))]))))

    def test_plain_values_are_written_whole(self):
        out = io.StringIO()
        json_stream.write(out, {"a": [1, {"b": None}]})
        self.assertEqual('{"a":[1,{"b":null}]}', out.getvalue())


if __name__ == "__main__":
    unittest.main()
