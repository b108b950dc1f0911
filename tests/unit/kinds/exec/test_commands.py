"""kinds/exec/commands.py: hyperfine 1.20's rules for the benchmarks a command line makes (lists,
scans and their order, names, the reference, helpers), each value quoted where it stands."""
import pytest

from parbench.kinds.exec.commands import (ExecError, ExecOptions, NotACommandLine, argv_for, commands_for,
                                          ignored_codes, parameter_sets, per_command, scan_values, shell_words,
                                          substitute, tokenize)


@pytest.mark.parametrize("text, tokens", [("a,b", ["a", "b"]), ("a\\,b", ["a,b"]), ("a\\\\,b", ["a\\", "b"]),
                                          ("a\\nb", ["a\\nb"]), ("", [""]), ("a,", ["a", ""])])
def test_a_comma_list_splits_on_commas_except_escaped_ones(text, tokens):
    assert tokenize(text) == tokens


def test_an_integer_scan_counts_by_its_step_up_to_and_including_its_end():
    assert scan_values("1", "10", "4") == ["1", "5", "9"] and scan_values("-1", "1", None) == ["-1", "0", "1"]


def test_a_decimal_scan_keeps_its_written_precision_and_needs_a_step():
    assert scan_values("0.3", "0.7", "0.2") == ["0.3", "0.5", "0.7"]
    with pytest.raises(ExecError, match="step size is required"):
        scan_values("0.5", "1", None)


@pytest.mark.parametrize("low, high, step, message", [
    ("5", "1", None, "Empty parameter range"), ("1", "5", "0", "Zero is not a valid"),
    ("1", "1000000", None, "too large"), ("x", "2", "1", "not a number"), ("1", "inf", "1", "not a finite")])
def test_a_scan_hyperfine_refuses_is_refused_with_its_sentence(low, high, step, message):
    with pytest.raises(ExecError, match=message):
        scan_values(low, high, step)


def test_parameter_lists_make_a_product_whose_first_list_varies_fastest():
    options = ExecOptions(["x"], parameter_lists=[("a", ["1", "2"]), ("b", ["x", "y"])])
    assert parameter_sets(options) == [(("a", "1"), ("b", "x")), (("a", "2"), ("b", "x")),
                                       (("a", "1"), ("b", "y")), (("a", "2"), ("b", "y"))]


def test_a_parameter_named_twice_is_refused():
    with pytest.raises(ExecError, match="Duplicate parameter names: a"):
        parameter_sets(ExecOptions(["x"], parameter_lists=[("a", ["1"]), ("a", ["2"])]))


def test_substitution_is_one_pass_so_a_value_holding_a_placeholder_stays_as_written():
    assert substitute("{a} {b}", {"a": "{b}", "b": "2"}) == "{b} 2"


def test_in_a_shell_a_value_is_quoted_so_it_runs_nothing():
    assert argv_for("echo {x}", {"x": "a; touch PWN"}, "sh") == ("sh", "-c", "echo 'a; touch PWN'")


def test_without_a_shell_each_word_is_one_argument_whatever_its_value():
    assert argv_for("printf %s {x}", {"x": "a b;c"}, "none") == ("printf", "%s", "a b;c")


def test_input_is_the_shell_redirecting_before_the_command_and_is_refused_without_a_shell():
    assert argv_for("cat", {}, "bash --norc", "my file") == ("bash", "--norc", "-c", "exec <'my file'\ncat")
    with pytest.raises(ExecError, match="needs a shell"):
        argv_for("cat", {}, "none", "f")


@pytest.mark.parametrize("template, message", [("", "empty command"), ("echo 'open", "Failed to parse")])
def test_a_command_that_cannot_be_split_without_a_shell_is_refused(template, message):
    with pytest.raises(ExecError, match=message):
        argv_for(template, {}, "none")


def test_the_shell_is_a_command_line_and_default_means_sh():
    assert shell_words("default") == ["sh"] and shell_words("bash --norc") == ["bash", "--norc"]
    for bad in ("", "'open"):
        with pytest.raises(ExecError):
            shell_words(bad)


def test_the_reference_comes_first_unsubstituted_then_each_parameter_set_with_every_command():
    options = ExecOptions(["a {n}", "b {n}"], parameter_lists=[("n", ["1", "2"])], reference="ref {n}")
    commands = commands_for(options)
    assert [c.name for c in commands] == ["ref {n}", "a 1", "b 1", "a 2", "b 2"]
    assert [c.number for c in commands] == [0, 1, 2, 3, 4] and commands[2].parameters == (("n", "1"),)


def test_a_parameter_a_command_does_not_use_is_shown_beside_it():
    command, = commands_for(ExecOptions(["true"], parameter_lists=[("n", ["1"])]))
    assert command.display == "true (n = 1)" and command.name == "true"


def test_names_go_to_the_first_commands_and_the_rest_are_named_by_their_command_line():
    assert [c.name for c in commands_for(ExecOptions(["true", "false"], names=["yes"]))] == ["yes", "false"]
    with pytest.raises(ExecError, match="Too many --command-name"):
        commands_for(ExecOptions(["true"], names=["a", "b"]))


def test_with_parameters_one_name_serves_every_benchmark_substituted_or_one_per_benchmark():
    lists = [("n", ["1", "2"])]
    assert [c.name for c in commands_for(ExecOptions(["x {n}"], ["run {n}"], lists))] == ["run 1", "run 2"]
    with pytest.raises(ExecError, match="exactly once, or exactly 2 times"):
        commands_for(ExecOptions(["x {n}"], ["a", "b", "c"], lists))


def test_a_nul_byte_anywhere_is_no_command_line():
    with pytest.raises(NotACommandLine, match="NUL"):
        commands_for(ExecOptions(["true"], parameter_lists=[("n", ["a\x00b"])]))


def test_per_benchmark_options_are_given_once_or_once_per_benchmark_reference_included():
    commands_for(ExecOptions(["a", "b"], prepare=["p1", "p2", "p3"], reference="r"))
    with pytest.raises(ExecError, match="N=2"):
        commands_for(ExecOptions(["a", "b"], conclude=["c1", "c2", "c3"]))


def test_an_output_file_must_be_written_as_a_path():
    with pytest.raises(ExecError, match="Use './out'"):
        commands_for(ExecOptions(["a"], output=["out"]))
    assert commands_for(ExecOptions(["a"], output=["./out"]))


def test_an_input_file_that_does_not_exist_is_refused_before_anything_runs(tmp_path):
    with pytest.raises(ExecError, match="does not exist"):
        commands_for(ExecOptions(["cat"], input=str(tmp_path / "missing")))


def test_a_helper_whose_value_cannot_stand_where_it_is_put_is_refused_now():
    with pytest.raises(NotACommandLine):
        commands_for(ExecOptions(["true {x}"], parameter_lists=[("x", ["a"])], prepare=["echo `echo {x}`"]))


def test_ignore_failure_ignores_nothing_every_non_zero_exit_or_the_codes_listed():
    assert (ignored_codes(None), ignored_codes("all-non-zero"), ignored_codes("")) == (None, (), ())
    assert ignored_codes("1, 2") == (1, 2)
    with pytest.raises(ExecError, match="--ignore-failure"):
        ignored_codes("1,x")


def test_a_once_or_per_benchmark_value_is_the_one_value_or_the_benchmarks_own():
    assert (per_command([], 3), per_command(["p"], 3), per_command(["a", "b"], 1)) == (None, "p", "b")
