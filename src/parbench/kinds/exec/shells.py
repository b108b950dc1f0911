"""Which shell runs exec's commands, and where a value may go under it: quoted by that shell's
own rules (sh, dash, bash, zsh: placement.py's POSIX quoting; fish: its own), never into the code
of a language parbench does not quote for, and never to a command that would evaluate it."""
from __future__ import annotations

import os
import re
import shlex

POSIX_SHELLS = frozenset({"sh", "dash", "bash", "zsh", "ksh", "mksh", "ash", "busybox"})
FISH = "fish"
OPT_IN = "--allow-evaluated-values"

# Commands that run their argument as code: the shells and interpreters with their code flag
# (`sh -c`, `python3 -c`, `perl -e`, also after `xargs`), and the shell's own evaluators.
_INTERPRETERS = {**{name: ("-c",) for name in POSIX_SHELLS | {FISH, "python", "python3", "python2", "pwsh"}},
                 "perl": ("-e", "-E"), "ruby": ("-e",), "node": ("-e", "-p", "--eval", "--print"),
                 "php": ("-r",), "lua": ("-e",)}
_EVALUATORS = {"eval": "runs its arguments as a command line", "source": "runs a file named by it as shell",
               ".": "runs a file named by it as shell",
               "let": "evaluates its arguments as arithmetic, where a[$(cmd)] runs cmd"}
_DECLARERS = frozenset({"declare", "typeset", "local", "export", "readonly"})
_SEPARATORS = frozenset({";", "&&", "||", "|", "&", "\n", "(", ")", "{", "}", "!", "do", "then", "else", "time"})


class Refused(ValueError):
    """A template, under its shell, where a value would run as code: one line saying why."""


def dialect(shell_words: list[str]) -> str | None:
    """"posix" or "fish" for a shell parbench quotes for, None for any other program."""
    name = os.path.basename(shell_words[0]) if shell_words else ""
    if name in POSIX_SHELLS:
        return "posix"
    return "fish" if name == FISH else None


def fish_quoted(value: str) -> str:
    """A value as one literal word for fish, whose single quotes take `\\'` and `\\\\` as escapes
    (so POSIX's `'\\''` would leave a backslash in fish)."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _simple_commands(template: str) -> list[list[str]]:
    """The template's simple commands as word lists, split at ; && || | and newlines (rough, as
    a refusal needs only to see which command a placeholder is handed to)."""
    lexer = shlex.shlex(template.replace("\n", " ; "), posix=True, punctuation_chars=";&|()")
    lexer.whitespace_split, lexer.commenters = True, ""
    try:
        tokens = list(lexer)
    except ValueError:                 # an open quote: placement.py says what is wrong with it
        return [template.split()]
    commands, words = [], []
    for token in tokens:
        if token in _SEPARATORS or set(token) <= set(";&|()"):
            if words:
                commands.append(words)
            words = []
        else:
            words.append(token)
    return commands + ([words] if words else [])


def _why_evaluated(words: list[str], holes: re.Pattern) -> str | None:
    """Why a placeholder in this simple command would be run as code, or None."""
    held = [i for i, word in enumerate(words) if holes.search(word)]
    if not held:
        return None
    start = next((i for i, word in enumerate(words) if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", word)
                  and word not in ("command", "exec", "builtin", "nohup", "env")), len(words))
    first = words[start] if start < len(words) else ""
    if first in _EVALUATORS:
        return f"`{first}` {_EVALUATORS[first]}"
    if first in _DECLARERS and any(re.fullmatch(r"-[A-Za-z]*i[A-Za-z]*", w) for w in words[start + 1:]):
        return f"`{first} -i` evaluates the value it assigns as arithmetic, where a[$(cmd)] runs cmd"
    if "[[" in words and any(words.index("[[") < i for i in held):
        return "`[[ ]]` evaluates the operands of -eq, -lt and the like as arithmetic, where a[$(cmd)] runs cmd"
    for i, word in enumerate(words):
        flags = _INTERPRETERS.get(os.path.basename(word))
        if flags is None:
            continue
        code = next((j for j in range(i + 1, len(words)) if words[j] in flags), None)
        # Only the word after the flag is code; the words after it are its arguments ($1…),
        # where `sh -c 'echo "$1"' _ {x}` hands a value over safely.
        if code is not None and code + 1 in held:
            return f"`{os.path.basename(word)} {words[code]}` runs its argument as code"
    return None


def check(template: str, parameters: dict[str, str], shell: str, shell_words: list[str] | None,
          evaluated_allowed: bool) -> None:
    """Refused (one line) where a value would not stay text: a shell parbench does not quote
    for, or a command that evaluates what it is handed (unless the user opted in)."""
    if not parameters:
        return
    holes = re.compile("|".join(re.escape(f"{{{name}}}") for name in sorted(parameters)))
    if not holes.search(template):
        return
    if shell != "none" and dialect(shell_words or []) is None:
        raise Refused(f"--shell {shell} is not a shell parbench quotes values for (sh, dash, bash, zsh, fish): "
                      f"a value cannot be placed in its code; use one of those, or -N to pass each value as an "
                      f"argument (in {template[:60]!r})")
    if evaluated_allowed:
        return
    for words in _simple_commands(template):
        why = _why_evaluated(words, holes)
        if why:
            raise Refused(f"a value would be run as code: {why} (in {template[:60]!r}); if that is meant, "
                          f"give {OPT_IN}")
