# Python 3.12 syntax: PEP 695 type aliases and type parameters, a PEP 701 f-string. A front end on
# an older interpreter cannot parse it, and says which Python parsed and that --python picks
# another (tests/checker/python/test_front_end.py); Python 3.12 and newer read it.
type Size = int  # expect-error: before 3.12{{cannot parse}}


class Box[T]:
    def get(self) -> T: ...


label = f"{'a' + "b"}"
