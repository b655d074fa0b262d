"""The ``pedelec`` command: inspect, call, check and serve a session's tools.

Every command takes a TARGET, ``path/to/file.py:attr`` or ``package.module:attr``, where ``attr``
is a :class:`~pedelec.Session` or a zero-argument function returning one::

    pedelec tools examples/counter.py:session
    pedelec tool-spec examples/counter.py:session update_counter
    pedelec tool-call examples/counter.py:session update_counter '{"delta": 3}'
    pedelec manifest examples/counter.py:session --format openai
    pedelec check examples/counter.py:session --strict
    pedelec serve examples/counter.py:session --transport http --port 8000

``tool-spec`` and ``tool-call`` print the TypeScript SDK's ``pedelec-cli`` envelope, one JSON
line for every outcome, and exit 0; the ``pedelec-cli`` console script prints the same for
``pedelec-cli tool-spec NAME`` / ``tool-call NAME 'JSON'`` with the session from
``PEDELEC_TARGET``. Other exit codes: 1 ``check`` found problems, an export failed or the
target's own code failed while loading; 2 the command line is wrong (bad TARGET or options, a
missing extra). Failures print one line on stderr, never a traceback unless ``--traceback``.

Rooms: ``_main`` (``main``), ``_parser`` (the argparse tree), ``_commands`` (one function per
command), ``_tool_cli`` (``tool-spec``/``tool-call`` and ``pedelec-cli``), ``_envelope``
(upstream's JSON text), ``_logs`` (``--log-level``), ``_lint`` (what ``check`` finds),
``_target`` (TARGET -> Session), ``_serve`` (MCP) and ``_wire`` (raw-message checks for serve).
"""

from pedelec.cli._main import main

__all__ = ["main"]
