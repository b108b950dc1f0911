"""Issue 37's property: an `exec` value never reaches the shell as code. Values drawn from an
alphabet of shell metacharacters (and pieces that would run `touch M` or write `>M` if they were
read as syntax) go through every placement of `{x}`: bare, '…', "…", $(…), backticks, ${…},
here-documents quoted or not, after a `#`, bash's $'…', $(( )) and (( )), in the command and in
--prepare / --conclude / --setup / --cleanup, run by sh (dash here) and by bash. Each example
is refused with one line or run; no file may ever appear, and where the placement prints the
value, what is printed is the value."""
from __future__ import annotations

import os
import subprocess

from hypothesis import example, given, strategies as st

from parbench.kinds.exec.commands import ExecOptions, NotACommandLine, argv_for, commands_for

import test_fuzz_boundaries  # noqa: F401 — registers and loads the suite's Hypothesis profiles

SNIPPETS = ["$(touch M)", "`touch M`", "\nEOF\ntouch M\n", "\nEOF", "EOF\n", "x[$(touch M)]", "';touch M;'",
            '";touch M;"', "\ntouch M", "}", "))", "$((1))", ">M", "\\", "'", '"', "\t", "${U:-$(touch M)}",
            "\\\n", "$'\\x27'", "#", "\r", "EOF", "*", "~", "!", "-1", "42"]
ALPHABET = "$`'\"\\(){}[];&|<>#\n\t *?~!=%-aEOFxM"
values = st.lists(st.sampled_from(SNIPPETS) | st.text(ALPHABET, max_size=3), max_size=6).map("".join)


def _as_is(value: str, shell: str) -> str:
    return value


def _trailing_newlines_cut(value: str, shell: str) -> str:
    return value.rstrip("\n")            # what $(…) does to a command's output


def _line(value: str, shell: str) -> str:
    return value + "\n"


def _ansi(value: str, shell: str) -> str:
    return value if shell == "bash" else "$" + value       # dash has no $'…': it reads $ then '…'


# Each placement, and what it prints when the value is let in (None: nothing to compare).
PLACEMENTS = {
    "printf %s {x}": _as_is,
    "printf %s a{x}b": lambda value, shell: f"a{value}b",
    "printf %s '{x}'": _as_is,
    'printf %s "{x}"': _as_is,
    'printf %s "a {x} b"': lambda value, shell: f"a {value} b",
    'printf %s "$(printf %s {x})"': _trailing_newlines_cut,
    'printf %s "$(printf %s "{x}")"': _trailing_newlines_cut,
    "printf %s $(printf %s '{x}')": None,          # unquoted: split into words
    "printf %s `printf %s {x}`": None,
    'printf %s "`printf %s {x}`"': None,
    "printf %s ${UNSET_VARIABLE:-{x}}": _as_is,
    'printf %s "${UNSET_VARIABLE:-{x}}"': _as_is,
    "cat <<EOF\n{x}\nEOF": _line,
    "cat <<'EOF'\n{x}\nEOF": _line,
    "cat <<-EOF\n\t{x}\n\tEOF": None,              # tabs are stripped from the value's lines too
    'printf %s "$(cat <<EOF\n{x}\nEOF\n)"': _trailing_newlines_cut,
    "true # {x}\nprintf %s done": lambda value, shell: "done",
    "printf %s $'{x}'": _ansi,
    "echo $(( {x} + 1 ))": None,
    "(( {x} + 1 )) || true": None,            # dash: a subshell running the command {x}
    "case {x} in *) printf %s {x};; esac": _as_is,
}
HELPERS = ["command", "--prepare", "--conclude", "--setup", "--cleanup"]


def _argv(template: str, value: str, shell: str, where: str) -> list[str] | None:
    """The argv parbench would run for `template` placed at `where`; None where it is refused."""
    options = ExecOptions(["true"] if where != "command" else [template], parameter_lists=[("x", [value])], shell=shell)
    if where in ("--prepare", "--conclude"):
        setattr(options, where[2:], [template])
    elif where != "command":
        setattr(options, where[2:], template)
    try:
        [command] = commands_for(options)       # checks every helper's placement too
    except NotACommandLine as refusal:
        assert "\n" not in str(refusal)
        return None
    return list(command.argv if where == "command" else argv_for(template, {"x": value}, shell))


@given(value=values, template=st.sampled_from(sorted(PLACEMENTS)), shell=st.sampled_from(["sh", "bash"]),
       where=st.sampled_from(HELPERS))
@example(value="a; touch M", template='printf %s "$(printf %s {x})"', shell="sh", where="command")
@example(value="x\nEOF\ntouch M", template="cat <<EOF\n{x}\nEOF", shell="bash", where="command")
@example(value="\nEOFx[$(touch M)]", template='printf %s "$(cat <<EOF\n{x}\nEOF\n)"', shell="bash",
         where="command")                          # found by a 10,000-example run: bash ended the body at EOFx
@example(value="\ntouch M", template="true # {x}\nprintf %s done", shell="sh", where="--prepare")
@example(value="x[$(touch M)]", template="(( {x} + 1 )) || true", shell="bash", where="command")
@example(value="'", template='printf %s "${UNSET_VARIABLE:-{x}}"', shell="bash", where="--setup")
@example(value="$(touch M)", template="printf %s `printf %s {x}`", shell="sh", where="--cleanup")
def test_no_exec_value_ever_runs_as_shell_code(tmp_path_factory, value, template, shell, where):
    folder = tmp_path_factory.mktemp("placement")
    argv = _argv(template, value, shell, where)
    if argv is None:
        return
    done = subprocess.run(argv, cwd=folder, capture_output=True, timeout=30, env={**os.environ, "LC_ALL": "C.UTF-8"})
    assert not list(folder.iterdir()), f"{argv!r} made {list(folder.iterdir())}"
    expected = PLACEMENTS[template]
    if expected is not None and done.returncode == 0:
        # bytes, not text=True, whose universal newlines would read a \r as \n
        assert done.stdout.decode() == expected(value, shell), (argv, done.stdout, done.stderr)
