"""Issue 46's property for exec under each shell: a value is quoted by the rules of the shell
that runs it, or the template is refused in one line; and a value handed to a command that
evaluates its argument (sh -c, bash -c, eval, xargs … sh -c, let, [[ ]], declare -i, source,
an interpreter's -c) is refused naming the opt-in, whatever the value. sh, dash, bash, zsh and
fish (scripts/setup installs the last two) each run what parbench writes for them; fish's
quoting is also checked against fish's documented reading of a single-quoted word."""
from __future__ import annotations

import os
import shutil
import subprocess

from hypothesis import example, given, strategies as st

import test_fuzz_boundaries  # noqa: F401 — registers and loads the suite's Hypothesis profiles
from parbench.kinds.exec.commands import ExecOptions, NotACommandLine, commands_for
from conftest import require
from test_fuzz_shell_placement import values

EVALUATING = ["sh -c {x}", "bash -c {x}", "eval {x}", "printf 1 | xargs sh -c {x}", "let y={x}", "[[ {x} -eq 1 ]]",
              "declare -i y={x}", "source {x}", ". {x}", "python3 -c {x}", "true; eval {x}", "y=1 eval {x}",
              "typeset -i y={x}", "echo 1 && bash -c {x}"]
SHELLS = ["sh", "dash", "bash", "zsh", "fish", "/bin/sh", "bash --norc", "none"]
OTHER_PROGRAMS = ["python3", "perl", "node", "ruby", "awk", "/usr/bin/env python3"]


def _argv(template: str, value: str, shell: str, allow: bool = False):
    return commands_for(ExecOptions([template], parameter_lists=[("x", [value])], shell=shell,
                                    evaluated_values=allow))[0].argv


@given(value=values, template=st.sampled_from(EVALUATING), shell=st.sampled_from(SHELLS))
@example(value="touch M", template="sh -c {x}", shell="sh")
@example(value="a[$(touch M)]", template="[[ {x} -eq 1 ]]", shell="bash")
def test_a_value_handed_to_an_evaluating_command_is_refused_naming_the_opt_in(value, template, shell):
    try:
        _argv(template, value, shell)
    except NotACommandLine as refusal:
        assert "\n" not in str(refusal)
        assert "--allow-evaluated-values" in str(refusal) or "fish's rules" in str(refusal), str(refusal)
        return
    raise AssertionError(f"{template!r} under {shell} ran with {value!r}")


# Issue 59: a value printed into a pipe, a here-string or a here-document whose reader runs its
# standard input as code (a shell with no script, an interpreter reading `-`, xargs handing it to
# sh -c, source /dev/stdin), under every shell that has pipes.
FED = ["echo {x} | sh", "printf %s {x} | bash -s", "echo {x} | xargs sh -c", "echo {x} | xargs -I R bash -c R",
       "sh <<< {x}", "echo {x} | python3 -", "{ echo {x}; } | sh", "echo {x} | tr a b | sh /dev/stdin",
       "printf '%s\\n' {x} | env bash", "echo {x} | source /dev/stdin", "bash <<EOF\necho {x}\nEOF"]


@given(value=values, template=st.sampled_from(FED), shell=st.sampled_from(["sh", "dash", "bash", "zsh", "/bin/sh",
                                                                        "bash --norc"]))
@example(value="touch M", template="echo {x} | sh", shell="sh")
def test_a_value_fed_to_a_program_that_runs_its_input_is_refused_naming_the_opt_in(value, template, shell):
    try:
        _argv(template, value, shell)
    except NotACommandLine as refusal:
        assert "\n" not in str(refusal) and "--allow-evaluated-values" in str(refusal), str(refusal)
        return
    raise AssertionError(f"{template!r} under {shell} ran with {value!r}")


@given(value=values, template=st.sampled_from(["print({x})", "echo {x}", "x = '{x}'"]),
       shell=st.sampled_from(OTHER_PROGRAMS))
@example(value='+__import__("os").system("touch M"))\n#', template="print({x})", shell="python3")   # issue 46
def test_under_a_program_that_is_not_a_known_shell_a_value_is_refused_in_one_line(value, template, shell):
    try:
        _argv(template, value, shell)
    except NotACommandLine as refusal:
        assert "is not a shell parbench quotes values for" in str(refusal) and "\n" not in str(refusal)
        return
    raise AssertionError(f"{template!r} under {shell} ran with {value!r}")


@given(value=values, shell=st.sampled_from(["sh", "dash", "bash", "zsh", "fish"]),
       template=st.sampled_from(["printf %s {x}", "printf %s {x} | cat", "cat <<< {x}",
                                 "sh -c 'printf %s \"$1\"' _ {x}"]))
@example(value="a b;touch M", shell="bash", template="cat <<< {x}")
@example(value="a'b\\'; touch M; echo '", shell="fish", template="printf %s {x}")
@example(value="$(touch M)`touch N`${HOME}", shell="zsh", template="printf %s {x} | cat")
def test_under_each_shell_the_value_is_printed_and_nothing_runs(tmp_path_factory, value, shell, template):
    require(shutil.which(shell), f"{shell} is not installed (scripts/setup installs it)")
    if template.startswith("cat <<<") and shell not in ("bash", "zsh"):
        shell = "bash"                              # a here-string is bash's and zsh's
    folder = tmp_path_factory.mktemp("quoted")
    try:
        argv = _argv(template, value, shell)
    except NotACommandLine as refusal:
        assert "\n" not in str(refusal)
        return
    done = subprocess.run(argv, cwd=folder, capture_output=True, timeout=30, env={**os.environ, "LC_ALL": "C.UTF-8"})
    assert not list(folder.iterdir()), f"{argv!r} made {list(folder.iterdir())}"
    expected = value + "\n" if template.startswith("cat <<<") else value
    assert done.returncode != 0 or done.stdout.decode() == expected, (argv, done.stdout, done.stderr)


def _fish_single_quoted_word(text: str) -> str:
    """fish's reading of one '…' word (its documentation: in single quotes, \\' is ' and \\\\ is
    \\; every other character, \\ before anything else included, is itself)."""
    assert text[0] == "'" and text[-1] == "'"
    body, out, i = text[1:-1], [], 0
    while i < len(body):
        if body[i] == "\\" and i + 1 < len(body) and body[i + 1] in "'\\":
            out.append(body[i + 1])
            i += 2
        else:
            assert body[i] != "'", f"an unescaped ' ends the word early: {text!r}"
            out.append(body[i])
            i += 1
    return "".join(out)


@given(value=values)
@example(value="a'b\\c")
@example(value="\\'; touch M; echo '")
def test_under_fish_a_bare_value_is_one_word_that_fish_reads_back_as_the_value(value):
    argv = _argv("echo {x}", value, "fish")
    assert argv[:2] == ("fish", "-c") and argv[2].startswith("echo '")
    assert _fish_single_quoted_word(argv[2][len("echo "):]) == value
