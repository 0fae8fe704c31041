"""The whole program: classes resolved across modules (imports, re-exports, `*`), what is heavy
(names, tensors, classes whose attributes are heavy, methods only heavy classes define), and the
memfloor.facts/1 document with fields keyed by the class that owns the attribute."""

from __future__ import annotations

from typing import Any, Dict, Iterable, Iterator, List, Optional, Set, Tuple

from .file_scan import Settings
from .handles import NULLING_IDIOMS
from .heavy import LIBRARY_METHODS
from .json_stream import Items, Members
from .raw import Candidate, ClassRaw, FileFacts, FunctionRaw, Loc, SiteRaw

FACTS_SCHEMA = "memfloor.facts/1"
_MAX_DEPTH = 16


class Program:
    def __init__(self, files: List[FileFacts], settings: Settings):
        self.files = files
        self.settings = settings
        self.modules: Dict[str, FileFacts] = {f.module: f for f in files}
        self._resolved: Dict[str, Optional[str]] = {}
        self.classes: Dict[str, ClassRaw] = {}
        self.file_of_class: Dict[str, str] = {}
        self.functions: Dict[str, FunctionRaw] = {}
        self.file_of_function: Dict[str, str] = {}
        self.definers: Dict[str, List[str]] = {}  # method name -> classes that define it
        for f in files:
            for c in f.classes:
                self.classes.setdefault(c.qname, c)
                self.file_of_class.setdefault(c.qname, f.file)
            for fn in f.functions:
                self.functions.setdefault(fn.key, fn)
                self.file_of_function.setdefault(fn.key, f.file)
        for c in self.classes.values():
            for m in c.methods:
                self.definers.setdefault(m, []).append(c.qname)
        self.bases: Dict[str, List[str]] = {
            q: [self.resolve(b) or b for b in c.bases] for q, c in self.classes.items()}
        self._mro: Dict[str, List[str]] = {}
        self._owned: Dict[str, Set[str]] = {}  # class -> attributes its methods store or release
        self._releasing: Set[Tuple[str, str]] = set()  # (class, attribute) its methods release
        for f in files:
            for e in f.events:
                if e.through_self and e.cls:
                    self._owned.setdefault(e.cls, set()).add(e.attr)
                    if e.kind == "release":
                        self._releasing.add((e.cls, e.attr))
        self._shared = self._shared_owners()
        self._owners: Dict[Tuple[str, str], str] = {}  # (class, attribute) -> owner(class, attribute)
        self._judge()
        for released, meant in self._stale_releases().items():
            self.heavy_field.update((released, meant))  # their events go to the rules (MF003)
        # Field key -> the program classes its stores construct (`self.node = Node(...)`).
        self.field_classes: Dict[str, Set[str]] = {}
        for f in files:
            for e in f.events:
                if e.kind != "assign":
                    continue
                for c in e.ctors:
                    q = self.resolve(c)
                    if q in self.classes:
                        key = self.field_key(e.cls, e.attr, e.through_self)[0]
                        self.field_classes.setdefault(key, set()).add(q)
        self._hierarchy_of: Dict[str, Optional[str]] = {}
        # A field no store types takes its class from the methods called on it where each names
        # one hierarchy (`self.experts.post_forward_comm()`): the most derived of those classes,
        # when the others are its bases.
        called: Dict[str, Set[str]] = {}
        for f in files:
            for s in f.sites:
                if s.through_self and s.attr is not None:
                    key = self.field_key(s.cls, s.attr, True)[0]
                    if key not in self.field_classes:
                        cls = self.hierarchy_of(s.method)
                        if cls is not None:
                            called.setdefault(key, set()).add(cls)
        for key, classes in called.items():
            derived = [c for c in classes if all(o in self.mro(c) for o in classes)]
            if len(derived) == 1:
                self.field_classes[key] = set(derived)
        # (field, method) of the calls through `self` that some method of the hierarchy releases
        # the field after. Such a call is a use of that field whether or not the program defines
        # the method (the commit of an offload interface from another package): the belief is
        # keyed by the attribute and the call, whichever class's method holds the release.
        self.taught: Set[Tuple[str, str]] = {
            (self.field_key(s.cls, s.attr, True)[0], s.method)
            for f in files for s in f.sites
            if s.direct and s.through_self and s.attr is not None and not self._idiom(s.method)
            and s.method not in LIBRARY_METHODS and self.site_heavy(s)}

    # -- names ----------------------------------------------------------------------------------

    def resolve(self, name: str, depth: int = 0) -> Optional[str]:
        """The program class or function `name` (qualified as written) refers to, through
        imports, re-exports and `*` (memoized; a name met again while resolving it is None)."""
        if name in self._resolved:
            return self._resolved[name]
        self._resolved[name] = None
        found = self._resolve(name, depth)
        self._resolved[name] = found
        return found

    def _resolve(self, name: str, depth: int) -> Optional[str]:
        if name in self.classes or name in self.functions:
            return name
        if depth > _MAX_DEPTH or "." not in name:
            return None
        module, _, last = name.rpartition(".")
        m = self.modules.get(module)
        if m is not None:
            target = m.aliases.get(last)
            if target and target != name:
                found = self.resolve(target, depth + 1)
                if found:
                    return found
            for star in m.stars:
                found = self.resolve(star + "." + last, depth + 1)
                if found:
                    return found
            return None
        outer = self.resolve(module, depth + 1)  # a class's nested class, or a re-exported module
        return self.resolve(outer + "." + last, depth + 1) if outer else None

    def mro(self, cls: str) -> List[str]:
        if cls in self._mro:
            return self._mro[cls]
        self._mro[cls] = [cls]  # a cycle stops here
        order = [cls]
        for b in self.bases.get(cls, []):
            for c in self.mro(b) if b in self.classes else []:
                if c not in order:
                    order.append(c)
        self._mro[cls] = order
        return order

    def find_method(self, cls: Optional[str], name: str) -> Optional[str]:
        for c in self.mro(cls) if cls in self.classes else []:
            key = self.classes[c].methods.get(name)
            if key is not None:
                return key
        return None

    def owner(self, cls: Optional[str], attr: str) -> Optional[str]:
        """The class whose field `attr` of an object of `cls` is: the most basic one that stores
        or releases it."""
        if cls not in self.classes:
            return cls
        answer = self._owners.get((cls, attr))
        if answer is None:  # asked again for each event, call and dereference: made once
            found = cls
            for c in self.mro(cls):
                if attr in self._owned.get(c, ()):
                    found = c
            answer = self._owners[(cls, attr)] = self._shared.get((found, attr), found)
        return answer

    def _shared_owners(self) -> Dict[Tuple[str, str], str]:
        """(class, attribute) -> the class whose field the attribute is, for each class whose
        methods store or release it. Classes that one object combines share the field: a class
        and its bases, but also a mixin and the class beside it (`class L(Mixin, Base)`: the
        mixin's method that releases `self.x` releases the `x` that Base's methods store). So
        owners found in one MRO are joined, and a group's field is that of its most basic class
        (the first by name when several are most basic, e.g. a mixin and a base). Only groups
        where some class releases the attribute are joined: without a release there is nothing
        to teach, and a joined field would carry one class's heavy stores into the other's."""
        parent: Dict[Tuple[str, str], Tuple[str, str]] = {}

        def find(x: Tuple[str, str]) -> Tuple[str, str]:
            while parent.setdefault(x, x) != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for cls in self.classes:
            first: Dict[str, str] = {}
            for c in self.mro(cls):
                for attr in self._owned.get(c, ()):
                    other = first.setdefault(attr, c)
                    if other != c:
                        parent[find((c, attr))] = find((other, attr))
        groups: Dict[Tuple[str, str], List[str]] = {}
        for member in list(parent):
            groups.setdefault(find(member), []).append(member[0])
        shared: Dict[Tuple[str, str], str] = {}
        for (_, attr), members in groups.items():
            if len(members) < 2 or not any((c, attr) in self._releasing for c in members):
                continue
            basic = [c for c in members if not any(o != c and o in self.mro(c) for o in members)]
            owner = min(basic)
            for c in members:
                shared[(c, attr)] = owner
        return shared

    def field_key(self, cls: Optional[str], attr: str, through_self: bool) -> Tuple[str, str]:
        if through_self and cls:
            owner = self.owner(cls, attr)
            return owner + "." + attr, owner
        return "*." + attr, ""

    # -- heavy ----------------------------------------------------------------------------------

    def _judge(self) -> None:
        s = self.settings
        self.heavy_class: Dict[str, bool] = {
            q: (s.class_patterns(c.name) or q in s.heavy_types) and q not in s.light_types
            for q, c in self.classes.items()}
        self.heavy_field: Set[str] = set()
        self.nulled: Set[str] = set()
        self.released: Set[str] = set()
        light: Set[str] = set()
        keyed = [(self.field_key(e.cls, e.attr, e.through_self)[0], e)
                 for f in self.files for e in f.events]
        for key, e in keyed:
            if e.kind == "release":
                self.released.add(key)
                if e.idiom in NULLING_IDIOMS:
                    self.nulled.add(key)
            if e.light:
                light.add(key)
            elif s.heavy_name(e.attr) or e.heavy:
                self.heavy_field.add(key)
        self.heavy_field -= light  # `self.cache_size = 0`: a heavy name, a light value
        # What the fixed point revisits: the stores of possible constructors' results, and each
        # class's fields and bases.
        stored = [(key, e.ctors) for key, e in keyed if e.ctors]
        fields = {q: [self.owner(q, a) + "." + a for c in self.mro(q) for a in self._owned.get(c, ())]
                  for q in self.classes}
        for _ in range(_MAX_DEPTH):
            changed = False
            for key, ctors in stored:
                if key not in self.heavy_field and self._heavy_ctor(ctors):
                    self.heavy_field.add(key)
                    changed = True
            for q in self.classes:
                if self.heavy_class[q] or q in s.light_types:
                    continue
                if any(a in self.heavy_field for a in fields[q]) or any(
                        self.heavy_class.get(b, False) for b in self.mro(q)[1:]):
                    self.heavy_class[q] = True
                    changed = True
            if not changed:
                break
        self.heavy_names = {k.rpartition(".")[2] for k in self.heavy_field}

    def _stale_releases(self) -> Dict[str, str]:
        """Field key of a release -> that of the member it most likely meant. A method releases
        `self.x` (None or del) where nothing in the classes an object of its class combines, nor
        any store on another object, assigns `x`, and one of those classes assigns a member whose
        name is `x`'s but for its underscores (`epoch_output` for `_epoch_output`): what a rename
        left behind, and the member it meant is kept. A name the classes define as a method (a
        property whose setter stores `_x`) is no stale release."""
        assigned: Dict[str, Set[str]] = {}
        elsewhere: Set[str] = set()
        for f in self.files:
            for e in f.events:
                if e.kind == "assign":
                    if e.through_self and e.cls:
                        assigned.setdefault(e.cls, set()).add(e.attr)
                    else:
                        elsewhere.add(e.attr)
        subclasses: Dict[str, Set[str]] = {}
        for c in self.classes:
            for b in self.mro(c)[1:]:
                subclasses.setdefault(b, set()).add(c)
        found: Dict[str, str] = {}
        for f in self.files:
            for e in f.events:
                if e.kind != "release" or not e.through_self or e.cls not in self.classes or \
                        e.idiom not in NULLING_IDIOMS or e.attr in elsewhere:
                    continue
                combined: Set[str] = set()
                for c in {e.cls} | subclasses.get(e.cls, set()):
                    combined.update(self.mro(c))
                names = set().union(*(assigned.get(c, set()) for c in combined))
                if e.attr in names or any(e.attr in self.classes[c].methods for c in combined):
                    continue
                bare = e.attr.replace("_", "")
                meant = sorted(a for a in names if a != e.attr and a.replace("_", "") == bare)
                if meant:
                    found[self.field_key(e.cls, e.attr, True)[0]] = \
                        self.field_key(e.cls, meant[0], True)[0]
        return found

    def _heavy_ctor(self, ctors: Iterable[str]) -> bool:
        for c in ctors:
            q = self.resolve(c)
            if q in self.classes and self.heavy_class.get(q, False):
                return True
        return False

    def heavy_method(self, name: str) -> bool:
        classes = self.definers.get(name, [])
        return bool(classes) and all(self.heavy_class.get(c, False) for c in classes)

    # -- receivers ------------------------------------------------------------------------------

    def _one_class(self, names: Iterable[str]) -> Optional[str]:
        """The program class that `names` (qualified, as written) resolve to, when they name one
        hierarchy: the most basic of them (several unrelated classes: None)."""
        return self._most_basic({q for q in (self.resolve(n) for n in names) if q in self.classes})

    def _most_basic(self, classes: Iterable[str]) -> Optional[str]:
        """The one class of `classes` that every other derives from, if there is one."""
        classes = list(classes)
        basic = [c for c in classes if all(c in self.mro(o) for o in classes)]
        return basic[0] if len(basic) == 1 else None

    def hierarchy_of(self, method: str) -> Optional[str]:
        """The class whose method `method` is wherever it is called on an object the code does not
        type: the most basic definer, when every program class that defines it is that class or
        derives from it, and no builtin or library type has a method of that name."""
        if method in self._hierarchy_of:
            return self._hierarchy_of[method]
        answer = None
        definers = self.definers.get(method, [])
        if definers and method not in LIBRARY_METHODS:
            answer = self._most_basic(definers)
        self._hierarchy_of[method] = answer
        return answer

    def receiver_class(self, s: SiteRaw) -> Optional[str]:
        """The program class of a call's receiver, where the code shows it: `self`, a local made by
        a program class, a parameter annotated with one, an attribute whose every store constructs
        one; else the one hierarchy that defines the method (`hierarchy_of`)."""
        if s.root == "self" and s.attr is None:
            return s.cls if s.cls in self.classes else None
        found = None
        if s.attr is None:
            found = self._one_class(s.ctors)
        else:
            key = self.field_key(s.cls, s.attr, s.through_self)[0]
            if s.through_self and key in self.field_classes:
                found = self._one_class(self.field_classes[key])
        if found is not None and self.find_method(found, s.method) is not None:
            return found
        return self.hierarchy_of(s.method)

    def method_key(self, s: SiteRaw, cls: Optional[str]) -> str:
        """The site's method for its beliefs: `Root.m`, the most basic class of the receiver's
        that defines it, where the receiver's class is known; else `*.m`, which keys a belief by
        the field alone (an attribute's call of a method the code cannot place). `cls` is the
        receiver's class (receiver_class)."""
        if cls is not None:
            for c in reversed(self.mro(cls)):
                if s.method in self.classes[c].methods:
                    return c + "." + s.method
        return "*." + s.method

    def _idiom(self, method: str) -> bool:
        return method in self.settings.release_methods or method in self.settings.store_methods

    def is_site(self, s: SiteRaw) -> bool:
        """A call of a program method (library calls such as `d.keys()` are no uses) on a heavy
        object, or of any method on an attribute of `self` that the hierarchy releases after the
        same call (`taught`); release and store idioms are events, not uses."""
        if self._idiom(s.method):
            return False
        if s.root == "self" and s.attr is None:
            return self.find_method(s.cls, s.method) is not None and self.site_heavy(s)
        taught = s.through_self and s.attr is not None and \
            (self.field_key(s.cls, s.attr, True)[0], s.method) in self.taught
        # A program method only where the receiver's class has it: `d.values()` on an object the
        # code does not type is dict's, whatever program class also defines `values()`.
        return (taught or self.receiver_class(s) is not None) and self.site_heavy(s)

    def site_heavy(self, s: SiteRaw) -> bool:
        if s.root == "self" and s.attr is None:
            return self.heavy_class.get(s.cls, False)
        if self.heavy_method(s.method) or s.heavy:
            return True
        if s.attr is not None:
            key, _ = self.field_key(s.cls, s.attr, s.through_self)
            return key in self.heavy_field or self.settings.heavy_name(s.attr) or \
                (not s.through_self and s.attr in self.heavy_names)
        return self._heavy_ctor(s.ctors)


def _loc(file: str, loc: Optional[Loc]) -> dict:
    if loc is None or loc[0] == 0:
        return {"file": "", "line": 0, "column": 0, "offset": 0}
    return {"file": file, "line": loc[0], "column": loc[1], "offset": loc[2]}


class FactsWriter:
    """The memfloor.facts/1 document of a program."""

    def __init__(self, program: Program):
        self.p = program
        self.fields: Dict[str, dict] = {}
        # Where each field was first met, (file, section): it is declared at the first event, call
        # or dereference of the first file that names it, although all the files' events are
        # written before their calls and their dereferences.
        self._first: Dict[str, Tuple[int, int]] = {}

    def document(self) -> Members:
        """The document, made as it is written (json_stream): "fields" comes last, as the events,
        calls and dereferences written before it name the fields it holds."""
        return Members(self._sections())

    def _sections(self) -> Iterator[Tuple[str, Any]]:
        p = self.p
        yield "schema", FACTS_SCHEMA
        yield "units", [f.file for f in p.files]
        yield "records", Members((q, p.bases[q]) for q in sorted(p.classes))
        yield "functions", Members((k, self._function(fn)) for k, fn in sorted(p.functions.items()))
        yield "events", Items(e for i, f in enumerate(p.files) for e in self._events(f, (i, 0)))
        yield "calls", Items(c for i, f in enumerate(p.files) for c in self._calls(f, (i, 1)))
        yield "derefs", Items(d for i, f in enumerate(p.files) for d in self._derefs(f, (i, 2)))
        yield "call_edges", Items(e for f in p.files for e in self._edges(f))
        yield "fields", Members(sorted(self.fields.items()))

    def _field(self, cls: Optional[str], attr: str, through_self: bool, file: str, loc: Loc,
               met: Tuple[int, int]) -> str:
        key, record = self.p.field_key(cls, attr, through_self)
        if key not in self.fields or met < self._first[key]:
            self._first[key] = met
            kind = "smart_pointer" if key in self.p.nulled or key not in self.p.released else "container"
            self.fields[key] = {"key": key, "name": attr, "record": record, "kind": kind,
                                "loc": _loc(file, loc)}
        return key

    def _function(self, fn: FunctionRaw) -> dict:
        p = self.p
        overrides: List[str] = []
        if fn.cls in p.classes:
            name = fn.key.rpartition(".")[2]
            for b in p.bases.get(fn.cls, []):
                k = p.find_method(b, name)
                if k and k not in overrides:
                    overrides.append(k)
        checks = []
        for attr in fn.null_tests or []:
            key, _ = p.field_key(fn.cls, attr, True)
            if key in p.heavy_field and key in p.nulled:
                checks.append(key)
        return {"key": fn.key, "display": fn.display, "record": fn.cls or "", "kind": fn.kind,
                "overrides": overrides, "null_checks": checks,
                "loc": _loc(p.file_of_function.get(fn.key, ""), fn.loc)}

    def _events(self, f: FileFacts, met: Tuple[int, int]):
        for e in f.events:
            key, _ = self.p.field_key(e.cls, e.attr, e.through_self)
            if key not in self.p.heavy_field:
                continue
            self._field(e.cls, e.attr, e.through_self, f.file, e.loc, met)
            yield {"kind": e.kind, "field": key, "function": e.function, "idiom": e.idiom,
                   "through_this": e.through_self, "loc": _loc(f.file, e.loc),
                   "per_call": e.per_call or e.kind == "release"}

    def _expand(self, c: Candidate, cls: Optional[str]) -> List[str]:
        """The method a candidate call runs: that of `cls`, the receiver's class where known,
        else of the one hierarchy that defines the name; never every method of that name (one
        class's `combine()` that drops its state releases nothing of another's)."""
        if cls is None:
            cls = self.p.hierarchy_of(c.name)
        k = self.p.find_method(cls, c.name) if cls else None
        return [k] if k else []

    def _calls(self, f: FileFacts, met: Tuple[int, int]):
        p = self.p
        for s in f.sites:
            if not p.is_site(s):
                continue
            field = self._field(s.cls, s.attr, s.through_self, f.file, s.loc, met) if s.attr else ""
            candidates = []
            receiver = p.receiver_class(s)
            for c in s.candidates:
                cls = (receiver if c.kind == "self" else s.cls if s.through_self else None)
                for method in self._expand(c, cls):
                    candidates.append({"method": method, "field": field if c.kind == "owner" else "",
                                       "name": c.name, "all_paths": True, "loc": _loc(f.file, c.loc),
                                       "checked_paths": False})
            persistent = s.persistent or (s.root == "local" and any(
                p.resolve(c) not in p.classes for c in s.ctors))
            is_self = s.root == "self" and s.attr is None
            display = (p.classes[s.cls].name + "." + s.method) if is_self and s.cls in p.classes \
                else s.method
            site = {"method": p.method_key(s, receiver), "method_display": display,
                    "receiver_record": s.cls if is_self and s.cls else "", "field": field,
                    "function": s.function, "handle": s.text, "handle_is_pointer": True,
                    "persistent": persistent and not is_self, "loc": _loc(f.file, s.loc),
                    "released": {"direct": s.direct, "candidates": candidates,
                                 "event": _loc(f.file, s.event), "event_idiom": s.event_idiom},
                    "fix_after": _loc(f.file, s.fix_after), "fix_indent": s.fix_indent}
            if s.guard_at is not None:  # most sites have none: no empty location written
                site["guard_at"] = _loc(f.file, s.guard_at)
            yield site

    def _derefs(self, f: FileFacts, met: Tuple[int, int]):
        p = self.p
        for d in f.derefs:
            key, _ = p.field_key(d.cls, d.attr, d.through_self)
            # Attributes of other objects are keyed by name only: too loose to call a use unsafe.
            if not d.through_self or key not in p.heavy_field or key not in p.nulled:
                continue
            self._field(d.cls, d.attr, d.through_self, f.file, d.loc, met)
            candidates = []
            for c in d.candidates:
                for method in self._expand(c, d.cls if d.through_self else None):
                    candidates.append({"method": method, "field": key, "name": c.name,
                                       "all_paths": c.all_paths, "loc": _loc(f.file, c.loc),
                                       "checked_paths": c.checked})
            yield {"field": key, "function": d.function, "handle": d.text, "loc": _loc(f.file, d.loc),
                   "guarded": {"direct": False, "candidates": candidates,
                               "event": _loc(f.file, None), "event_idiom": ""}}

    def _edges(self, f: FileFacts):
        p = self.p
        seen: Set[Tuple[str, str, bool]] = set()
        for e in f.edges:
            callee = None
            if e.kind == "self":
                callee = p.find_method(e.cls, e.target)
            elif e.kind == "super":
                for b in p.bases.get(e.cls, []) if e.cls else []:
                    callee = p.find_method(b, e.target)
                    if callee:
                        break
            else:
                target = p.resolve(e.target)
                if target in p.classes:
                    callee = p.find_method(target, "__init__")
                elif target in p.functions:
                    callee = target
            if callee is None or (e.caller, callee, e.on_this) in seen:
                continue
            seen.add((e.caller, callee, e.on_this))
            yield {"caller": e.caller, "callee": callee, "on_this": e.on_this, "loc": _loc(f.file, e.loc)}


def facts_document(files: List[FileFacts], settings: Settings) -> Members:
    return FactsWriter(Program(files, settings)).document()
