"""No private attribute of another library is read anywhere in the project's code.

An AST walk over engine/, storage/, bot/, tools/, benchmarks/ and tests/ flags ``x._name`` (and
``getattr(x, "_name")``, ``hasattr(x, "_name")``) where ``x`` is another library's: a module
imported from outside the project, an object such a module made (``pool = Executor()``,
``async with aiosqlite.connect() as db``, ``loop = asyncio.get_running_loop()``), a parameter
or attribute annotated with such a type, or ``self`` in a class that derives from one (an
attribute the class does not set itself is its base's). "Another library" is everything
outside the project, the standard library included. Importing from another library's private
module (``from x._impl import y``) is flagged too.

A private name that the project itself sets on a foreign object (a marker such as
``record._redacted = True`` on a ``logging.LogRecord``) is the project's own and passes.

The inference is deliberately simple (names within a function, ``self`` attributes within a
class); the self-test below pins what it must catch.
"""

from __future__ import annotations

import ast
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCANNED = ("engine", "storage", "bot", "tools", "benchmarks", "tests")
OURS = frozenset(SCANNED)

# Underscored names that are their library's documented public API. Nothing else belongs here.
ALLOWED: dict[tuple[str, str], str] = {
    # os._exit is the documented way for a child to end at once, skipping cleanup handlers
    ("os", "_exit"): "https://docs.python.org/3/library/os.html#os._exit",
}
# typeshed's module of shared types for annotations, imported under TYPE_CHECKING only
# (https://github.com/python/typeshed/tree/main/stdlib/_typeshed)
ALLOWED_MODULES = frozenset({"_typeshed"})
# namedtuple's methods start with an underscore to keep clear of field names; the docs make
# them public (https://docs.python.org/3/library/collections.html#collections.somenamedtuple._replace)
NAMEDTUPLE_API = frozenset({"_replace", "_asdict", "_fields", "_make", "_field_defaults"})

# Hits in files whose owners are changing them at the same time; each names the public way.
# The test fails when the list and the hits differ, so an entry goes once its hit is fixed.
PENDING: dict[tuple[str, str], str] = {}


@dataclass(frozen=True, slots=True)
class Hit:
    path: str
    line: int
    receiver: str  # the expression read from, as written
    name: str  # the private attribute or module
    origin: str  # the library it belongs to (dotted)

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.receiver}.{self.name} ({self.origin})"


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _external(qualified: str | None) -> bool:
    if not qualified:
        return False
    top = qualified.split(".")[0]
    return top not in OURS and top != "__future__"


class _Module:
    """One file's imports, and the private names it stores on objects other than ``self``."""

    def __init__(self, tree: ast.Module) -> None:
        self.imports: dict[str, str] = {}  # local name -> dotted origin
        self.private_imports: list[tuple[int, str]] = []
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        self.imports[alias.asname] = alias.name
                    else:
                        top = alias.name.split(".")[0]
                        self.imports[top] = top
                    self._check_module(node.lineno, alias.name)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                self._check_module(node.lineno, node.module)
                for alias in node.names:
                    self.imports[alias.asname or alias.name] = f"{node.module}.{alias.name}"
                    if (
                        _external(node.module)
                        and _is_private(alias.name)
                        and node.module.split(".")[0] not in ALLOWED_MODULES
                    ):
                        self.private_imports.append((node.lineno, f"{node.module}.{alias.name}"))

    def _check_module(self, line: int, module: str) -> None:
        if module.split(".")[0] in ALLOWED_MODULES:
            return
        if _external(module) and any(_is_private(part) for part in module.split(".")):
            self.private_imports.append((line, module))


def _stored_private_names(trees: list[ast.Module]) -> frozenset[str]:
    """Private names the project assigns on receivers other than ``self``/``cls``."""
    names: set[str] = set()
    for tree in trees:
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.ctx, ast.Store)
                and _is_private(node.attr)
                and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
            ):
                names.add(node.attr)
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "setattr"
                and len(node.args) >= 2
                and isinstance(node.args[1], ast.Constant)
                and isinstance(node.args[1].value, str)
            ):
                names.add(node.args[1].value)
    return frozenset(names)


class _Checker:
    """Walks one module with the types it can infer in each scope."""

    def __init__(self, path: str, tree: ast.Module, ours_stored: frozenset[str]) -> None:
        self.path = path
        self.module = _Module(tree)
        self.ours_stored = ours_stored
        self.hits: list[Hit] = [
            Hit(path, line, "import", name, name) for line, name in self.module.private_imports
        ]
        self.tree = tree

    # ---- what an expression is

    def origin(
        self, node: ast.expr | None, scope: dict[str, str], attrs: dict[str, str]
    ) -> str | None:
        """The dotted origin of ``node`` when it is another library's module, class, function
        or an object one of them made; None when it is the project's or unknown."""
        match node:
            case ast.Name(id=name):
                if name in scope:
                    return scope[name]
                found = self.module.imports.get(name)
                return found if _external(found) else None
            case ast.Attribute(value=ast.Name(id="self"), attr=attr):
                return attrs.get(attr)
            case ast.Attribute(value=value, attr=attr):
                inner = self.origin(value, scope, attrs)
                return f"{inner}.{attr}" if inner else None
            case ast.Call(func=func):
                return self.origin(func, scope, attrs)
            case ast.Await(value=value):
                return self.origin(value, scope, attrs)
            case ast.Subscript(value=value):
                return self.origin(value, scope, attrs)
        return None

    def annotation_origin(self, node: ast.expr | None) -> str | None:
        """The first other library's type named in an annotation (``X | None`` included)."""
        if node is None:
            return None
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                node = ast.parse(node.value, mode="eval").body
            except SyntaxError:
                return None
        for part in ast.walk(node):
            if isinstance(part, ast.Name | ast.Attribute):
                found = self.origin(part, {}, {})
                if found:
                    return found
        return None

    # ---- the walk

    def run(self) -> list[Hit]:
        scope: dict[str, str] = {}
        for statement in self.tree.body:  # make() is what make() returns
            if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef) and (
                found := self.annotation_origin(statement.returns)
            ):
                scope[statement.name] = found
        self._body(self.tree.body, scope, {}, derived=None, own=frozenset())
        return self.hits

    def _body(
        self,
        body: list[ast.stmt],
        scope: dict[str, str],
        attrs: dict[str, str],
        *,
        derived: str | None,
        own: frozenset[str],
    ) -> None:
        for statement in body:
            if isinstance(statement, ast.ClassDef):
                self._class(statement, scope)
            elif isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
                self._function(statement, scope, attrs, derived=derived, own=own)
            else:
                self._statement(statement, scope, attrs, derived=derived, own=own)

    def _class(self, node: ast.ClassDef, outer: dict[str, str]) -> None:
        bases = [self.origin(base, outer, {}) for base in node.bases]
        derived = next((b for b in bases if b), None)
        attrs: dict[str, str] = {}
        own: set[str] = set()
        for statement in node.body:  # the class body's own names: methods, class attributes
            if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                own.add(statement.name)
                returns = getattr(statement, "returns", None)
                if found := self.annotation_origin(returns):
                    attrs[statement.name] = found  # self.make() is what make() returns
            elif isinstance(statement, ast.AnnAssign | ast.Assign):
                targets = statement.targets if isinstance(statement, ast.Assign) else []
                for target in [*targets, getattr(statement, "target", None)]:
                    if isinstance(target, ast.Name):
                        own.add(target.id)
                        self._type_attr(statement, target.id, attrs, outer)
        for part in ast.walk(node):  # what its methods set on self
            if isinstance(part, ast.AnnAssign | ast.Assign | ast.AugAssign):
                targets = part.targets if isinstance(part, ast.Assign) else [part.target]
                for target in targets:
                    for sub in ast.walk(target):
                        if (
                            isinstance(sub, ast.Attribute)
                            and isinstance(sub.value, ast.Name)
                            and sub.value.id == "self"
                        ):
                            own.add(sub.attr)
                            self._type_attr(part, sub.attr, attrs, outer)
        if any(isinstance(s, ast.Assign) and _names(s) == {"__slots__"} for s in node.body):
            own |= _slots(node)
        self._body(node.body, dict(outer), attrs, derived=derived, own=frozenset(own))

    def _type_attr(
        self, part: ast.stmt, attr: str, attrs: dict[str, str], outer: dict[str, str]
    ) -> None:
        if isinstance(part, ast.AnnAssign):
            found = self.annotation_origin(part.annotation) or self.origin(part.value, outer, {})
        elif isinstance(part, ast.Assign):
            found = self.origin(part.value, outer, {}) if isinstance(part.value, ast.Call) else None
        else:
            found = None
        if found:
            attrs[attr] = found

    def _function(
        self,
        node: ast.FunctionDef | ast.AsyncFunctionDef,
        outer: dict[str, str],
        attrs: dict[str, str],
        *,
        derived: str | None,
        own: frozenset[str],
    ) -> None:
        scope = dict(outer)
        arguments = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
        for extra in (node.args.vararg, node.args.kwarg):
            if extra is not None:
                arguments.append(extra)
        for argument in arguments:
            found = self.annotation_origin(argument.annotation)
            if found:
                scope[argument.arg] = found
            else:
                scope.pop(argument.arg, None)
        for default in [*node.args.defaults, *node.args.kw_defaults]:
            if default is not None:
                self._expression(default, outer, attrs, derived=derived, own=own)
        self._body(node.body, scope, attrs, derived=derived, own=own)

    def _statement(
        self,
        node: ast.stmt,
        scope: dict[str, str],
        attrs: dict[str, str],
        *,
        derived: str | None,
        own: frozenset[str],
    ) -> None:
        # Bindings first (a name's type holds from its assignment on, roughly in order).
        match node:
            case ast.Assign(targets=targets, value=value):
                for target in targets:
                    pairs: list[tuple[ast.expr, ast.expr]] = [(target, value)]
                    if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple):
                        pairs = list(zip(target.elts, value.elts, strict=False))  # a, b = x, y
                    for left, right in pairs:
                        found = self.origin(right, scope, attrs) if _makes(right) else None
                        if isinstance(left, ast.Name):
                            _bind(scope, left.id, found)
                        elif (
                            found
                            and isinstance(left, ast.Attribute)
                            and isinstance(left.value, ast.Name)
                            and left.value.id == "self"
                        ):
                            attrs[left.attr] = found  # self.conn = conn (a typed parameter)
            case ast.AnnAssign(target=ast.Name(id=name), annotation=annotation, value=value):
                made = self.origin(value, scope, attrs) if _makes(value) else None
                _bind(scope, name, self.annotation_origin(annotation) or made)
            case ast.With(items=items) | ast.AsyncWith(items=items):
                for item in items:
                    if isinstance(item.optional_vars, ast.Name):
                        found = self.origin(item.context_expr, scope, attrs)
                        _bind(scope, item.optional_vars.id, found)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                self._class(child, scope)
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                self._function(child, scope, attrs, derived=derived, own=own)
            elif isinstance(child, ast.stmt):
                self._statement(child, scope, attrs, derived=derived, own=own)
            elif isinstance(child, ast.expr):
                self._expression(child, scope, attrs, derived=derived, own=own)
            elif isinstance(child, ast.withitem | ast.excepthandler | ast.match_case):
                for sub in ast.iter_child_nodes(child):
                    if isinstance(sub, ast.stmt):
                        self._statement(sub, scope, attrs, derived=derived, own=own)
                    elif isinstance(sub, ast.expr):
                        self._expression(sub, scope, attrs, derived=derived, own=own)

    def _expression(
        self,
        node: ast.expr,
        scope: dict[str, str],
        attrs: dict[str, str],
        *,
        derived: str | None,
        own: frozenset[str],
    ) -> None:
        for part in ast.walk(node):
            if isinstance(part, ast.Attribute) and _is_private(part.attr):
                if isinstance(part.ctx, ast.Load):
                    self._check(part.value, part.attr, part.lineno, scope, attrs, derived, own)
            elif (
                isinstance(part, ast.Call)
                and isinstance(part.func, ast.Name)
                and part.func.id in ("getattr", "hasattr")
                and len(part.args) >= 2
                and isinstance(part.args[1], ast.Constant)
                and isinstance(part.args[1].value, str)
                and _is_private(part.args[1].value)
            ):
                name = part.args[1].value
                self._check(part.args[0], name, part.lineno, scope, attrs, derived, own)

    def _check(
        self,
        receiver: ast.expr,
        name: str,
        line: int,
        scope: dict[str, str],
        attrs: dict[str, str],
        derived: str | None,
        own: frozenset[str],
    ) -> None:
        if isinstance(receiver, ast.Name) and receiver.id in ("self", "cls"):
            origin = derived if name not in own else None
        else:
            origin = self.origin(receiver, scope, attrs)
        if not origin or name in self.ours_stored or name in NAMEDTUPLE_API:
            return
        if (origin, name) in ALLOWED:
            return
        self.hits.append(Hit(self.path, line, ast.unparse(receiver), name, origin))


def _makes(value: ast.expr | None) -> bool:
    """Whether assigning ``value`` binds what it evaluates to as another library's object: a
    call or an awaited call (``x = lib.make()``), or the library's module or class itself."""
    return isinstance(value, ast.Call | ast.Await | ast.Name | ast.Attribute)


def _bind(scope: dict[str, str], name: str, origin: str | None) -> None:
    if origin:
        scope[name] = origin
    else:
        scope.pop(name, None)


def _names(node: ast.Assign) -> set[str]:
    return {t.id for t in node.targets if isinstance(t, ast.Name)}


def _slots(node: ast.ClassDef) -> set[str]:
    names: set[str] = set()
    for statement in node.body:
        if isinstance(statement, ast.Assign) and _names(statement) == {"__slots__"}:
            for part in ast.walk(statement.value):
                if isinstance(part, ast.Constant) and isinstance(part.value, str):
                    names.add(part.value)
    return names


def scan(sources: dict[str, str]) -> list[Hit]:
    """The hits in ``sources`` (path -> text)."""
    trees = {path: ast.parse(text, filename=path) for path, text in sources.items()}
    stored = _stored_private_names(list(trees.values()))
    hits: list[Hit] = []
    for path, tree in trees.items():
        hits += _Checker(path, tree, stored).run()
    return sorted(hits, key=lambda h: (h.path, h.line, h.name))


def _project_sources() -> dict[str, str]:
    return {
        str(path.relative_to(ROOT)): path.read_text(encoding="utf-8")
        for top in SCANNED
        for path in sorted((ROOT / top).rglob("*.py"))
    }


def test_no_private_attribute_of_another_library_is_read() -> None:
    hits = scan(_project_sources())
    pending = {(h.path, f"{h.receiver}.{h.name}") for h in hits} & set(PENDING)
    unexpected = [str(h) for h in hits if (h.path, f"{h.receiver}.{h.name}") not in PENDING]
    assert unexpected == [], "another library's private attribute is read"
    assert pending == set(PENDING), f"fixed, take them off PENDING: {set(PENDING) - pending}"


# ---- what the walk must catch, and what it must let pass


def _hits(source: str) -> list[str]:
    return [f"{h.receiver}.{h.name}" for h in scan({"m.py": textwrap.dedent(source)})]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (
            """
            from concurrent.futures import ProcessPoolExecutor
            class Runner:
                def __init__(self) -> None:
                    self._pool = ProcessPoolExecutor()
                def pids(self):
                    return list(self._pool._processes)
                def kill(self):
                    for process in getattr(self._pool, "_processes", {}).values():
                        process.kill()
            """,
            ["self._pool._processes", "self._pool._processes"],
        ),
        (
            """
            import concurrent.futures
            class Runner:
                _pool: concurrent.futures.ProcessPoolExecutor | None = None
                def pids(self):
                    old = self._pool
                    return old, self._pool._processes
            def f(executor: "concurrent.futures.ProcessPoolExecutor"):
                return hasattr(executor, "_processes")
            """,
            ["self._pool._processes", "executor._processes"],
        ),
        (
            """
            import aiosqlite
            async def write(conn: aiosqlite.Connection, sql: str) -> None:
                await conn._execute(conn._conn.execute, sql)
            async def read(path):
                async with aiosqlite.connect(path) as db:
                    return await db._execute(print)
            async def opened(path):
                db = await aiosqlite.connect(path)
                return db._execute
            class Store:
                def __init__(self, conn: aiosqlite.Connection) -> None:
                    self.conn = conn
                async def put(self):
                    await self.conn._execute(print)
            """,
            ["conn._execute", "conn._conn", "db._execute", "db._execute", "self.conn._execute"],
        ),
        (
            """
            import asyncio
            from aiohttp import web
            import discord
            async def f(site: web.TCPSite):
                loop = asyncio.get_running_loop()
                return loop._ready, site._server, discord.utils._MissingSentinel
            class Bot(discord.Client):
                def __init__(self) -> None:
                    self._mine = 1
                def f(self):
                    return self._connection, self._mine
            """,
            [
                "loop._ready",
                "site._server",
                "discord.utils._MissingSentinel",
                "self._connection",
            ],
        ),
        (
            """
            from aiosqlite.core import _connection_worker_thread
            import numba._helperlib
            """,
            ["import.aiosqlite.core._connection_worker_thread", "import.numba._helperlib"],
        ),
    ],
    ids=[
        "executor._processes",
        "annotated",
        "aiosqlite._execute",
        "loop, site, subclass",
        "modules",
    ],
)
def test_the_walk_finds_private_reads(source: str, expected: list[str]) -> None:
    assert sorted(_hits(source)) == sorted(expected)


def test_the_walk_lets_the_projects_own_names_pass() -> None:
    source = """
        import logging
        import os
        from urllib.parse import urlsplit
        from engine.board import Board
        class Grid:
            __slots__ = ("_cells",)
            def copy(self, other: "Grid") -> Board:
                board = Board()
                board._cells = other._cells
                return board._cells, self._cells
        def mark(record: logging.LogRecord) -> bool:
            if getattr(record, "_seen", False):
                return True
            record._seen = True
            return False
        def end() -> None:
            os._exit(1)
        def safe(url: str) -> str:
            return urlsplit(url)._replace(netloc="x").geturl()
        """
    assert _hits(source) == []
