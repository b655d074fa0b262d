"""The ``pedelec`` command: inspect, call, check and serve a session's tools.

Every command takes a TARGET, ``path/to/file.py:attr`` or ``package.module:attr``, where ``attr``
is a :class:`~pedelec.Session` or a zero-argument function returning one::

    pedelec tools examples/counter.py:session
    pedelec tool-spec examples/counter.py:session update_counter
    pedelec tool-call examples/counter.py:session update_counter '{"delta": 3}'
    pedelec manifest examples/counter.py:session --format openai
    pedelec check examples/counter.py:session --strict
    pedelec serve examples/counter.py:session --transport http --port 8000

Exit codes: 0 success; 1 the tool call returned an error, ``check`` found problems, or the
target's own code failed while loading; 2 the command line is wrong (bad TARGET, arguments that
are not JSON, an unknown tool, a missing extra). Failures print one line on stderr, never a
traceback.

Rooms: ``_main`` (``main``), ``_parser`` (the argparse tree), ``_commands`` (one function per
command), ``_lint`` (what ``check`` finds), ``_target`` (TARGET -> Session) and ``_serve`` (MCP).
"""

from pedelec.cli._main import main

__all__ = ["main"]
