"""Find the session a CLI command works on, from a TARGET such as ``examples/counter.py:session``.

A TARGET is ``path/to/file.py:attr`` or ``package.module:attr``; ``attr`` (dotted names allowed)
is a :class:`~pedelec.Session` or a zero-argument callable returning one. Files are loaded the
way ``python path/to/file.py`` would see its neighbours (the file's folder goes first on
``sys.path``); modules are imported the way ``python -m`` would (the current folder goes first).
"""

from __future__ import annotations

import inspect
import os
import sys
from typing import TYPE_CHECKING, Any

from pedelec.errors import PedelecError

if TYPE_CHECKING:
    from pedelec.session import Session

__all__ = ["TargetError", "load_target"]


class TargetError(Exception):
    """A TARGET could not be turned into a session; ``str(err)`` is one line for the user.

    Attributes:
        error: The ``PedelecError`` raised while loading (a bad schema, a duplicate tool…), so
            ``pedelec check`` can report its tool and pointer; ``None`` for other failures.
        usage: True when the TARGET itself is wrong (bad form, no such file, module or
            attribute, not a session); False when the target's own code failed.
    """

    def __init__(self, message: str, *, error: PedelecError | None = None, usage: bool) -> None:
        super().__init__(message)
        self.error = error
        self.usage = usage


def _describe(exc: BaseException) -> str:
    if isinstance(exc, PedelecError):
        return str(exc)
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def _is_file_target(ref: str) -> bool:
    return ref.endswith(".py") or "/" in ref or os.sep in ref


def _load_file(ref: str) -> Any:
    import importlib.util

    path = os.path.abspath(ref)
    if not os.path.isfile(path):
        raise TargetError(f"no such file: {ref}", usage=True)
    folder = os.path.dirname(path)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    stem = os.path.splitext(os.path.basename(path))[0]
    # A private module name keeps the target from shadowing a real module called e.g. "counter".
    module_name = f"_pedelec_target_{stem}_{abs(hash(path)):x}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise TargetError(f"cannot load {ref} as Python source", usage=True)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except PedelecError as exc:
        del sys.modules[module_name]
        raise TargetError(f"loading {ref} failed: {exc}", error=exc, usage=False) from exc
    except Exception as exc:
        del sys.modules[module_name]
        raise TargetError(f"loading {ref} raised {_describe(exc)}", usage=False) from exc
    return module


def _load_module(ref: str) -> Any:
    import importlib

    cwd = os.getcwd()
    if cwd not in sys.path:
        sys.path.insert(0, cwd)
    try:
        return importlib.import_module(ref)
    except ModuleNotFoundError as exc:
        # Only a missing target module is the user's typo; a missing import inside it is a bug
        # in the target, reported as such.
        if exc.name is not None and (ref == exc.name or ref.startswith(exc.name + ".")):
            raise TargetError(f"no module named {ref!r}", usage=True) from exc
        raise TargetError(f"importing {ref} raised {_describe(exc)}", usage=False) from exc
    except PedelecError as exc:
        raise TargetError(f"importing {ref} failed: {exc}", error=exc, usage=False) from exc
    except Exception as exc:
        raise TargetError(f"importing {ref} raised {_describe(exc)}", usage=False) from exc


def load_target(target: str) -> Session:
    """Import a TARGET and return its session.

    Args:
        target: ``path/to/file.py:attr`` or ``package.module:attr``.

    Returns:
        The session ``attr`` names, or the session its zero-argument factory returns.

    Raises:
        TargetError: With a one-line message when the TARGET is malformed, cannot be found,
            raises while loading, or does not lead to a ``Session``.

    Example:
        >>> load_target("examples/counter.py:session").tool_names()
        ['update_counter']
    """
    from pedelec.session import Session

    ref, sep, attr = target.rpartition(":")
    if not sep or not ref or not attr:
        raise TargetError(
            f"TARGET {target!r} must look like path/to/file.py:session or package.module:session",
            usage=True,
        )
    obj = _load_file(ref) if _is_file_target(ref) else _load_module(ref)
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise TargetError(f"{ref} has no attribute {attr!r}", usage=True) from None
    if isinstance(obj, Session):
        return obj
    if not callable(obj):
        raise TargetError(
            f"{target} is a {type(obj).__name__}, not a pedelec Session "
            "or a function that returns one",
            usage=True,
        )
    try:
        signature: inspect.Signature | None = inspect.signature(obj)
    except ValueError:  # no signature to inspect (some builtins): just try the call
        signature = None
    if signature is not None:
        try:
            signature.bind()
        except TypeError:
            raise TargetError(
                f"{target} needs arguments; point TARGET at a Session "
                "or a function that takes none and returns one",
                usage=True,
            ) from None
    try:
        made = obj()
    except PedelecError as exc:
        raise TargetError(f"calling {target}() failed: {exc}", error=exc, usage=False) from exc
    except Exception as exc:
        raise TargetError(f"calling {target}() raised {_describe(exc)}", usage=False) from exc
    if not isinstance(made, Session):
        raise TargetError(
            f"{target}() returned a {type(made).__name__}, not a pedelec Session", usage=True
        )
    return made
