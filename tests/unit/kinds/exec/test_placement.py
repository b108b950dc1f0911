"""kinds/exec/placement.py: each value written for the context its placeholder stands in, or
refused with the reason; the second scan refuses a value that would leave its context."""
import pytest

from parbench.kinds.exec.placement import Unplaceable, substitute


@pytest.mark.parametrize("template, value, command", [
    ("echo {x}", "a b", "echo 'a b'"),
    ("echo '{x}'", "it's", "echo 'it'\\''s'"),
    ('echo "{x}"', '$(x) `y` "z" \\', 'echo "\\$(x) \\`y\\` \\"z\\" \\\\"'),
    ('echo "$(echo {x})"', "a; b", "echo \"$(echo 'a; b')\""),
    ('echo "${U:-{x}}"', "}$", 'echo "${U:-\\}\\$}"'),
    ("cat <<EOF\n{x}\nEOF", "$HOME `x`", "cat <<EOF\n\\$HOME \\`x\\`\nEOF"),
    ("cat <<'EOF'\n{x}\nEOF", "$HOME", "cat <<'EOF'\n$HOME\nEOF"),
    ("echo $(( {x} + 1 ))", "-42", "echo $(( -42 + 1 ))"),
    ("true # {x}", "a; b", "true # a; b"),
    ("cat <<< {x}", "a b; c", "cat <<< 'a b; c'"),          # a here-string's word, not a delimiter (issue 46)
    ("cat <<<{x}", "EOF", "cat <<<'EOF'"),
])
def test_a_value_is_written_for_its_context(template, value, command):
    assert substitute(template, {"x": value}) == command


@pytest.mark.parametrize("template, value, why", [
    ("echo `echo {x}`", "a", "backticks"),
    ("echo ${x}", "a", "follows a $"),
    ("echo \\{x}", "a", "backslash"),
    ("echo ${{x}}", "a", "name of a ${…}"),
    ("cat <<{x}\nhi\n", "EOF", "delimiter"),
    ("echo $(( {x} ))", "a[$(id)]", "only an integer"),
    ("echo $'{x}'", "it's", "sh and bash read differently"),
    ('echo "${U:-{x}}"', "it's", "bash pairs '"),
    ("true # {x}\necho done", "a\nid", "newline in it would end the comment"),
    ("cat <<EOF\n{x}\nEOF", "x\nEOF\nid", "the delimiter"),
    ("cat <<EOF\n{x}\nEOF", "EOF", "the delimiter"),
])
def test_a_placement_or_value_no_quoting_makes_safe_is_refused_with_its_reason(template, value, why):
    with pytest.raises(Unplaceable, match=why.replace("$", r"\$").replace("[", r"\[")):
        substitute(template, {"x": value})


def test_a_value_holding_another_placeholder_is_not_substituted_again():
    assert substitute("echo {x} {y}", {"x": "{y}", "y": "b"}) == "echo '{y}' 'b'"
