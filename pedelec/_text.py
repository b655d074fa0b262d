"""What "blank" means for the text rules a definition shares with the TypeScript SDK.

Python's ``str.strip()`` and ``str.isspace()`` use their own whitespace set (it holds the
separators U+001C to U+001F and leaves out U+FEFF); upstream trims with JavaScript's and Rust's, so
a rule written with ``strip()`` would accept descriptions upstream refuses and refuse ones it
accepts.
"""

from __future__ import annotations

from typing import Final

__all__ = ["JS_WHITESPACE", "RUST_WHITESPACE", "is_blank", "js_trim"]

#: The characters ``String.prototype.trim`` removes (ECMA-262 WhiteSpace and LineTerminator):
#: TAB, VT, FF, SP, NBSP, ZWNBSP (U+FEFF), the other Zs space separators, LF, CR, LS and PS.
JS_WHITESPACE: Final = (
    "\t\v\f \u00a0\ufeff"
    "\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000"
    "\n\r\u2028\u2029"
)
#: The characters Rust's ``str::trim`` removes (Unicode ``White_Space``): JavaScript's set
#: without U+FEFF and with NEL (U+0085).
RUST_WHITESPACE: Final = (
    "\t\n\v\f\r \u0085\u00a0"
    "\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000"
    "\u2028\u2029"
)


def js_trim(text: str) -> str:
    """``text`` with JavaScript's ``String.prototype.trim`` applied."""
    return text.strip(JS_WHITESPACE)


def is_blank(text: str) -> bool:
    """True when ``text`` is empty after upstream's trim, in its SDK or in its Core.

    A tool description passes the TypeScript SDK's ``normalizeSkillsInput``
    (``sdk/src/index.ts``: ``description.trim().length === 0`` is refused) and then its Core's
    ``ToolRegistry::from_skills_input`` (``desktop/crates/pedelec-core/src/lib.rs``:
    ``description.trim().is_empty()`` is refused, Rust's ``str::trim``). Text is blank when
    either would refuse it, so a description the port accepts is one upstream accepts: only
    ``"\\ufeff"`` is blank to JavaScript, only ``"\\x85"`` to Rust, ``"\\x1c"`` to neither.
    """
    return not text.strip(JS_WHITESPACE) or not text.strip(RUST_WHITESPACE)
