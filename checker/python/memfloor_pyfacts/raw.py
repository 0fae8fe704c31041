"""What one file says before the program is known: records that name classes and methods by their
qualified names as written, to be resolved, judged heavy or not, and keyed by program.py."""

from __future__ import annotations

from typing import Dict, List, NamedTuple, Optional, Tuple

Loc = Tuple[int, int, int]  # line and column from 1, byte offset in the file


class ClassRaw(NamedTuple):
    qname: str  # module.Qualname
    name: str
    bases: List[str]  # qualified where the file's imports tell, else as written
    methods: Dict[str, str]  # method name -> function key
    loc: Loc


class FunctionRaw(NamedTuple):
    key: str  # module.qualname
    display: str  # qualname, as Python frames show it
    cls: Optional[str]  # the class qname of a method
    kind: str  # function, method, constructor, destructor
    loc: Loc
    null_tests: Optional[List[str]]  # attributes of self that every return tests (bool predicates)


class EventRaw(NamedTuple):
    function: str
    cls: Optional[str]  # the class of the method when through self
    attr: str
    through_self: bool
    kind: str  # assign or release
    idiom: str
    loc: Loc
    heavy: bool  # the stored value is a tensor or has a heavy name
    ctors: Tuple[str, ...]  # qualified callees that may be constructors of the stored value
    light: bool  # the stored value is a number, a string, a bool, a size
    per_call: bool  # the stored value is made from the function's arguments


class Candidate(NamedTuple):
    kind: str  # "self": a call on the handle; "owner": a call on the object holding it
    name: str  # the method called
    loc: Loc
    all_paths: bool = True
    checked: bool = False  # MF004: a call in a branch condition on every path


class SiteRaw(NamedTuple):
    function: str
    cls: Optional[str]
    method: str
    text: str
    attr: Optional[str]
    through_self: bool
    root: str  # self, local, param, global
    persistent: bool  # the object outlives the function, as far as this file tells
    ctors: Tuple[str, ...]  # a local's possible constructors (then it dies with the function)
    heavy: bool  # the handle has a heavy name or holds a tensor
    loc: Loc
    direct: bool
    event: Optional[Loc]
    event_idiom: str
    candidates: List[Candidate]
    fix_after: Optional[Loc]
    fix_indent: str
    guard_at: Optional[Loc]  # where a None check can go before the statement (_guard_anchor)


class DerefRaw(NamedTuple):
    function: str
    cls: Optional[str]
    attr: str
    through_self: bool
    text: str
    loc: Loc
    candidates: List[Candidate]


class EdgeRaw(NamedTuple):
    caller: str
    kind: str  # "self": a method of the caller's class; "name": a qualified function or class
    cls: Optional[str]
    target: str
    on_this: bool
    loc: Loc


class FileFacts(NamedTuple):
    file: str
    module: str
    aliases: Dict[str, str]  # names bound by import -> qualified names
    stars: List[str]  # modules imported with *
    classes: List[ClassRaw]
    functions: List[FunctionRaw]
    events: List[EventRaw]
    sites: List[SiteRaw]
    derefs: List[DerefRaw]
    edges: List[EdgeRaw]
