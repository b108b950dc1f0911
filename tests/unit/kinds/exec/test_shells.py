"""kinds/exec/shells.py: a value quoted by the rules of the shell that runs it, refused under a
program parbench does not quote for, and refused where a command would run it as code."""
import re

import pytest

from parbench.kinds.exec.commands import ExecOptions, NotACommandLine, commands_for
from parbench.kinds.exec.shells import dialect, fish_quoted

HOSTILE = "a'b\\c; touch PWNED $(id) `id` \"q\""


def argv(template: str, value: str, shell: str = "sh", allow: bool = False) -> tuple[str, ...]:
    return commands_for(ExecOptions([template], parameter_lists=[("x", [value])], shell=shell,
                                    evaluated_values=allow))[0].argv


@pytest.mark.parametrize("words, expected", [(["sh"], "posix"), (["/bin/dash"], "posix"), (["bash", "--norc"], "posix"),
                                             (["zsh"], "posix"), (["/usr/bin/fish"], "fish"), (["python3"], None),
                                             (["node"], None)])
def test_each_shell_is_known_by_its_name(words, expected):
    assert dialect(words) == expected


def test_fish_single_quotes_escape_backslash_and_quote():
    assert fish_quoted("a'b\\c") == "'a\\'b\\\\c'"
    assert argv("echo {x}", "a'b\\c", "fish") == ("fish", "-c", "echo 'a\\'b\\\\c'")


def test_under_fish_a_value_inside_quotes_is_refused_rather_than_guessed():
    with pytest.raises(NotACommandLine, match="fish's rules"):
        argv('echo "{x}"', "1", "fish")


def test_under_a_program_that_is_not_a_shell_a_value_is_refused_in_one_line():
    """Issue 46: -S python3 … 'print({x}, {y})' ran a value as Python."""
    with pytest.raises(NotACommandLine, match="--shell python3 is not a shell parbench quotes values for") as refused:
        argv("print({x})", '+__import__("os").system("touch M"))\n#', "python3")
    assert "\n" not in str(refused.value).replace("\\n", "")


def test_without_placeholders_any_shell_runs_as_given():
    assert commands_for(ExecOptions(["print(1)"], shell="python3"))[0].argv == ("python3", "-c", "print(1)")


@pytest.mark.parametrize("shell, template, why", [
    ("sh", "sh -c {x}", "`sh -c` runs its argument as code"),
    ("sh", "bash -c {x}", "`bash -c` runs its argument as code"),
    ("sh", "echo 1 | xargs -n1 sh -c {x}", "`sh -c`"),
    ("sh", "eval {x}", "`eval`"),
    ("bash", "let y={x}", "`let`"),
    ("bash", "[[ {x} -eq 1 ]]", "`[[ ]]`"),
    ("bash", "declare -i y={x}", "`declare -i`"),
    ("bash", "source {x}", "`source`"),
    ("none", "python3 -c {x}", "`python3 -c`"),
    ("none", "sh -c {x}", "`sh -c`"),
])
def test_a_value_handed_to_a_command_that_evaluates_it_is_refused_with_the_reason_and_the_opt_in(shell, template, why):
    with pytest.raises(NotACommandLine, match="--allow-evaluated-values") as refused:
        argv(template, HOSTILE, shell)
    assert why in str(refused.value)


def test_the_opt_in_lets_an_evaluated_value_through_quoted_as_ever():
    assert argv("sh -c {x}", "echo hi", allow=True) == ("sh", "-c", "sh -c 'echo hi'")


def test_a_value_passed_as_an_argument_after_the_code_is_not_refused():
    assert argv("sh -c 'echo \"$1\"' _ {x}", HOSTILE)[-1].startswith("sh -c 'echo \"$1\"' _ '")


FED_TO_AN_EVALUATOR = [       # a value reaching, through standard input, a program that runs it
    ("echo {x} | sh", "`sh` with no script reads its program from standard input"),
    ("printf %s {x} | bash -s", "`bash -s` with no script"), ("echo {x} | sh /dev/stdin", "`sh` with no script"),
    ("echo {x} | tr a b | env sh", "printed into its pipe"), ("{ echo {x}; } | sh", "printed into its pipe"),
    ("(echo {x}) | bash", "printed into its pipe"), ("echo {x} |& sh", "printed into its pipe"),
    ("echo {x} | python3 -", "`python3` with no script"), ("echo {x} | perl", "`perl` with no script"),
    ("echo {x} | xargs sh -c", "`xargs sh -c` hands what it reads to sh as its code"),
    ("echo {x} | xargs -I R bash -c 'echo R'", "`xargs bash -c` hands what it reads to bash as its code"),
    ("echo {x} | xargs bash", "`xargs bash` hands what it reads to bash as the script it runs"), ("echo {x} | source /dev/stdin", "`source` runs"),
    ("sh <<< {x}", "a value is its input"), ("bash <<EOF\necho {x}\nEOF", "a value is its input"),
    ("sh < {x}", "a value is its input"),
]


@pytest.mark.parametrize("shell", ["sh", "bash", "zsh"])
@pytest.mark.parametrize("template, why", FED_TO_AN_EVALUATOR)
def test_a_value_fed_to_a_program_that_reads_its_code_from_stdin_is_refused(shell, template, why):
    with pytest.raises(NotACommandLine, match=f"a value would be run as code: .*{re.escape(why)}.*--allow-evaluated-values"):
        argv(template, "touch PWNED", shell)
    assert argv(template, "touch PWNED", shell, allow=True)         # the opt-in, for those who mean it


@pytest.mark.parametrize("template", ["printf %s {x} | cat", "cat <<< {x}", "echo {x} | sh -c 'wc -c'",
                                      "echo {x} | bash script.sh", "echo {x} | python3 -m json.tool",
                                      "echo {x} | xargs echo", "echo 1 | sh; echo {x}", "echo {x} > out",
                                      "seq {x} | xargs -n1 sh -c './work \"$0\"'"])
def test_a_value_piped_to_a_program_that_does_not_run_its_input_is_taken(template):
    assert argv(template, HOSTILE, "bash")
