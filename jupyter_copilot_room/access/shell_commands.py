"""Whether a shell command is one simple command, the only kind an `auto` rule may approve.

A glob on a command's text cannot see where one command ends: `git status*` also matches
`git status; curl evil | sh`. So the approval policy lets an `auto` rule decide only a command
this module calls simple: `shlex` (POSIX mode, `punctuation_chars`, no comments) splits it into
words, and it is compound if any word is made only of `( ) ; < > | &` (a list, a pipe, a
background job, a redirection, a subshell), if it holds a command substitution (`$(` or a
backtick, even inside double quotes, where bash still runs them), ANSI-C quoting (`$'...'`, whose
escapes shlex does not read as bash does), or a line break or other control character, and if
shlex cannot parse it at all (unbalanced quotes). It errs towards compound: a quoted lone
operator (`echo ';'`, `find ... \\;`) counts too, and such a command is asked, never approved.
Pure: no I/O.
"""

from __future__ import annotations

import re
import shlex

#: What shlex returns as a word of its own when it stands unquoted.
OPERATOR_CHARS = frozenset("();<>|&")
#: Seen anywhere in the text, these make a command compound whatever the quoting around them.
_ANYWHERE = re.compile(r"\$\(|`|\$'|[\x00-\x08\x0a-\x1f\x7f]")


def is_simple(command: str) -> bool:
    """True if `command` runs one program at most (an empty one runs none), with no
    redirection or substitution."""
    if _ANYWHERE.search(command):
        return False
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = ""  # bash's `#` starts a comment only at a word's start; shlex's anywhere
    try:
        words = list(lexer)
    except ValueError:  # "No closing quotation", "No escaped character"
        return False
    return not any(word and set(word) <= OPERATOR_CHARS for word in words)
