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


# --- a value handed over through a program's standard input -----------------------------------
# A shell or an interpreter given no code and no script reads its program from standard input
# (`sh`, `bash -s`, `python3 -`, `sh /dev/stdin`); xargs hands its input to the command it runs as
# arguments (`xargs sh -c`: the first one is the code); eval, source and . can read it ($(cat),
# /dev/stdin). A value printed into a pipe, a here-string or a here-document whose reader is one
# of them is run as code, quoted or not.
_STDIN_SCRIPTS = frozenset({"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})
_XARGS_TAKES_A_VALUE = frozenset({"-I", "-d", "-n", "-L", "-P", "-s", "-a", "-E", "--delimiter", "--max-args",
                                  "--max-lines", "--max-procs", "--max-chars", "--arg-file", "--eof", "--replace"})
_PIPE_TOKENS = ("|", "|&")
_LIST_TOKENS = frozenset({";", "&&", "||", "&", ";;"})


def _tokens(template: str) -> list[str]:
    """The template's words and operators (redirections apart: `<<<`, `<<`, `<`), roughly as the
    shell splits them; newlines are list separators (a here-document's body is read as lines)."""
    lexer = shlex.shlex(template.replace("\n", " ; "), posix=True, punctuation_chars=";&|()<>")
    lexer.whitespace_split, lexer.commenters = True, ""
    try:
        return list(lexer)
    except ValueError:                 # an open quote: placement.py says what is wrong with it
        return template.split()


def _program(words: list[str]) -> tuple[str, list[str]]:
    """The program a simple command runs (past assignments and command/exec/env…) and its words."""
    start = next((i for i, word in enumerate(words) if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", word)
                  and word not in ("command", "exec", "builtin", "nohup", "env", "time", "{", "(", "!")), len(words))
    return (os.path.basename(words[start]) if start < len(words) else ""), words[start + 1:]


def _operands(arguments: list[str]) -> list[str]:
    """A command's arguments less its options and its redirections with their targets."""
    out, skip = [], False
    for word in arguments:
        if skip:
            skip = False
        elif re.fullmatch(r"[0-9]*(<<<|<<-?|<>|<&|>&|>>|>\||<|>)", word):
            skip = True
        elif not word.startswith("-") or word == "-":
            out.append(word)
    return out


def _reads_code_from_stdin(words: list[str]) -> str | None:
    """Why this simple command would run what it reads on standard input as code, or None."""
    name, arguments = _program(words)
    options = [w for w in arguments if w.startswith("-") and w != "-"]
    if name in _EVALUATORS and name != "let":
        return f"`{name}` runs what it is given as shell, and can read it there ($(cat), /dev/stdin)"
    if name == "xargs":
        return _xargs_runs_its_input(arguments)
    flags = _INTERPRETERS.get(name)
    if flags is None:
        return None
    if any(w in flags for w in arguments) or (name.startswith("python") and "-m" in arguments):
        return None                    # its code is an argument (the argument check's part)
    script = next(iter(_operands(arguments)), None)
    reads_stdin = script is None or script in _STDIN_SCRIPTS or (
        name in POSIX_SHELLS | {FISH} and any(re.fullmatch(r"-[A-Za-z]*s[A-Za-z]*", w) for w in options))
    return f"`{' '.join([name, *options[:2]])}` with no script reads its program from standard input" \
        if reads_stdin else None


def _xargs_runs_its_input(arguments: list[str]) -> str | None:
    """xargs hands what it reads to its command as arguments: code where that command is a shell
    or an interpreter given no code of its own (`xargs sh -c`), the script it runs where it is
    given none (`xargs bash`), or text pasted into its code (`xargs -I R sh -c 'echo R'`). After
    code of its own (`xargs sh -c 'work "$0"'`) they are its arguments, which is safe."""
    rest, replaced = list(arguments), None
    while rest and rest[0].startswith("-"):
        flag = rest.pop(0)
        if flag in ("-I", "--replace") and rest:
            replaced = rest[0]
        elif flag.startswith(("-i", "--replace=")):
            replaced = flag.partition("=")[2] or flag[2:] or "{}"
        if flag in _XARGS_TAKES_A_VALUE and rest:
            rest.pop(0)
    runs, its_words = _program(rest) if rest else ("", [])
    flags = _INTERPRETERS.get(runs)
    if flags is None:
        return f"`xargs {runs}` hands what it reads to {runs}" if runs in _EVALUATORS else None
    code = next((i for i, w in enumerate(its_words) if w in flags), None)
    given = its_words[code + 1] if code is not None and code + 1 < len(its_words) else None
    if given is None or (replaced and replaced in given):
        return (f"`xargs {runs}{' ' + its_words[code] if code is not None else ''}` hands what it reads to "
                f"{runs} as {'its code' if code is not None else 'the script it runs'}")
    return None


def _why_fed_to_an_evaluator(template: str, holes: re.Pattern) -> str | None:
    """Why a value would reach, through standard input, a command that runs it as code: a later
    stage of a pipeline a value stands before (a `{ …; }` or `( … )` group's output included),
    or the reader of a here-string, here-document or `< FILE` that holds one. None where
    parbench sees no such path."""
    tokens = _tokens(template)
    depth, held, fed, stage = 0, False, False, []    # held: a value since the list began; fed: piped on
    for position, token in enumerate(tokens + [";"]):
        if token in _PIPE_TOKENS or token in _LIST_TOKENS:
            why = _reads_code_from_stdin(stage) if stage else None
            if why and fed:
                return why + ", and a value is printed into its pipe"
            if why and _redirects_a_value(stage, tokens[position:], holes):
                return why + ", and a value is its input"
            held = held or any(holes.search(w) for w in stage)
            if token in _PIPE_TOKENS:
                fed = fed or held
            elif depth == 0:                 # a list ends at its own level only: a group's output is piped whole
                held, fed = False, False
            stage = []
            continue
        depth += (token in ("(", "{")) - (token in (")", "}"))
        if token not in ("(", ")", "{", "}"):
            stage.append(token)
    return None


def _redirects_a_value(stage: list[str], after: list[str], holes: re.Pattern) -> bool:
    """Whether the stage's standard input holds a value: a here-string or `< FILE` naming one, or
    a here-document (whose body follows the command, as lines) with one in it."""
    for i, word in enumerate(stage):
        if word in ("<<<", "<") and i + 1 < len(stage) and holes.search(stage[i + 1]):
            return True
        if word in ("<<", "<<-") and any(holes.search(w) for w in after):
            return True
    return False


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
    why = _why_fed_to_an_evaluator(template, holes) if shell != "none" else None
    if why:
        raise Refused(f"a value would be run as code: {why} (in {template[:60]!r}); if that is meant, give {OPT_IN}")
