"""The six workload tools as pydantic ``TypedDict``s, for the ``TypeAdapter`` peer column.

Each ``TypedDict`` says what the tool's JSON Schema in ``workload.py`` says, as strictly as
pydantic allows, and is validated with ``TypeAdapter(T).validate_python(args, strict=True)``:
strict mode refuses ``True`` for ``int``, ``"3"`` for ``int`` and ``1`` for ``bool``, as the schema
does. Undeclared keys are kept unvalidated (``extra="allow"``), as JSON Schema without
``additionalProperties`` does. ``uniqueItems`` has no pydantic field constraint, so it is an
``AfterValidator`` comparing ``len(set(v))`` with ``len(v)``: the same work, and the same answer
on these item types (strict mode already refused ``True`` among integers).

What pydantic cannot express, so where the two validators can still differ (none of it is hit
by the workload's args, which ``check_verdicts`` in the scripts confirms before timing):

- ``enum`` of integers compares by JSON equality in JSON Schema (``10.0`` is a member of
  ``[10, 20]``); a strict ``Literal[10, 20]`` refuses the float.
- ``pattern`` is ECMA-262 in JSON Schema and the Rust ``regex`` crate in pydantic-core; the
  workload's patterns mean the same in both.
- ``oneOf`` means "exactly one branch"; a discriminated union on ``kind`` picks one branch by
  the tag, which is the same here because the three tags are distinct constants.
- pedelec's bounds (``max_pattern_length``, depth and size of the args) have no counterpart.

``build_adapters()`` defines the classes anew on every call, so each call gives adapters that
share nothing with earlier ones (the memory benchmark counts what one adapter holds; the
classes of the tools not asked for are garbage it collects before reading RSS).
"""

# No ``from __future__ import annotations``: the classes are local to ``build_adapters``, and
# pydantic could not resolve their names as strings from where the adapters are built.
from typing import Annotated, Any, Literal, NotRequired, TypeVar

from pydantic import AfterValidator, ConfigDict, Field, TypeAdapter, with_config

# pydantic needs typing_extensions' TypedDict before Python 3.12.
from typing_extensions import TypedDict
from workload import LANGUAGES

__all__ = ["build_adapters"]

T = TypeVar("T")


def _unique(items: list[T]) -> list[T]:
    if len(set(items)) != len(items):
        raise ValueError("items must be unique")
    return items


Unique = AfterValidator(_unique)
Open = ConfigDict(extra="allow")

# The 20 languages of ``workload.LANGUAGES``, spelled out: a Literal needs its members at
# definition time. ``build_adapters`` checks that the two lists agree.
Language = Literal[
    "ar", "de", "en", "es", "fa", "fr", "hi", "id", "it", "ja",
    "ko", "nl", "pl", "pt", "ru", "sv", "th", "tr", "uk", "zh",
]  # fmt: skip


def build_adapters(only: str | None = None) -> dict[str, TypeAdapter[Any]]:
    """Return a fresh ``TypeAdapter`` per workload tool (or for tool ``only``), keyed by name."""
    if set(Language.__args__) != set(LANGUAGES):  # type: ignore[attr-defined]
        raise SystemExit("pydantic_peers.Language differs from workload.LANGUAGES")

    @with_config(Open)
    class SetVolume(TypedDict):
        level: Annotated[int, Field(ge=0, le=100)]

    @with_config(Open)
    class Position(TypedDict):
        column: Annotated[int, Field(ge=0, le=9)]
        row: Annotated[int, Field(ge=0)]

    @with_config(Open)
    class Card(TypedDict):
        id: Annotated[str, Field(pattern=r"^card-[0-9]{1,8}$")]
        title: Annotated[str, Field(min_length=1, max_length=120)]
        labels: NotRequired[
            Annotated[
                list[Annotated[str, Field(min_length=1, max_length=24)]],
                Field(max_length=8),
                Unique,
            ]
        ]
        position: NotRequired[Position]

    @with_config(Open)
    class UpdateCard(TypedDict):
        card: Card
        notify: NotRequired[bool]

    @with_config(Open)
    class Cell(TypedDict):
        kind: Literal["cell"]
        row: Annotated[int, Field(ge=0)]
        column: Annotated[int, Field(ge=0)]

    @with_config(Open)
    class User(TypedDict):
        kind: Literal["user"]
        user_id: Annotated[str, Field(pattern=r"^u_[a-z0-9]{6,12}$")]

    @with_config(Open)
    class Link(TypedDict):
        kind: Literal["link"]
        url: Annotated[str, Field(pattern=r"^https://", max_length=2048)]

    @with_config(Open)
    class MoveTo(TypedDict):
        target: Annotated[Cell | User | Link, Field(discriminator="kind")]
        reason: NotRequired[Annotated[str, Field(max_length=200)]]

    Date = Annotated[str, Field(pattern=r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")]

    @with_config(Open)
    class Filters(TypedDict, total=False):
        author: Annotated[str, Field(pattern=r"^@?[A-Za-z0-9_]{1,15}$")]
        since: Date
        until: Date
        channel: Annotated[str, Field(pattern=r"^#[a-z0-9][a-z0-9-]{0,30}$")]
        tags: Annotated[
            list[Annotated[str, Field(pattern=r"^[a-z0-9-]{1,20}$")]], Field(max_length=10)
        ]
        has: Annotated[list[Literal["link", "image", "file", "code"]], Unique]

    @with_config(Open)
    class SearchMessages(TypedDict):
        query: Annotated[str, Field(min_length=1, max_length=200)]
        mode: NotRequired[Literal["any", "all", "phrase"]]
        language: NotRequired[Language]
        sort: NotRequired[Literal["relevance", "newest", "oldest"]]
        filters: NotRequired[Filters]
        page: NotRequired[Annotated[int, Field(ge=1, le=100)]]
        page_size: NotRequired[Literal[10, 20, 50, 100]]

    @with_config(Open)
    class Patch(TypedDict, total=False):
        status: Literal["todo", "doing", "done", "dropped"]
        priority: Annotated[int, Field(ge=1, le=5)]
        assignee: Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]{2,31}$")]

    @with_config(Open)
    class BulkUpdateTasks(TypedDict):
        ids: Annotated[
            list[Annotated[int, Field(ge=1)]], Field(min_length=1, max_length=100), Unique
        ]
        patch: Patch
        dry_run: NotRequired[bool]

    # JSON Schema's "number" has no NaN or infinity; pydantic's float allows them by default.
    Number = Annotated[float, Field(allow_inf_nan=False)]

    @with_config(Open)
    class Point(TypedDict):
        x: Number
        y: Number

    @with_config(Open)
    class Stroke(TypedDict):
        color: Annotated[str, Field(pattern=r"^#[0-9a-fA-F]{6}$")]
        width: NotRequired[Annotated[float, Field(ge=0.5, le=20, allow_inf_nan=False)]]

    @with_config(Open)
    class DrawPath(TypedDict):
        points: Annotated[list[Point], Field(min_length=2, max_length=1000)]
        closed: NotRequired[bool]
        stroke: NotRequired[Stroke]

    types: dict[str, Any] = {
        "set_volume": SetVolume,
        "update_card": UpdateCard,
        "move_to": MoveTo,
        "search_messages": SearchMessages,
        "bulk_update_tasks": BulkUpdateTasks,
        "draw_path": DrawPath,
    }
    return {name: TypeAdapter(typed) for name, typed in types.items() if only in (None, name)}
