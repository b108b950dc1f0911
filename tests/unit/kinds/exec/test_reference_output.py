"""kinds/exec/reference_output.py: the output every run at a point must print, and where a run leaves it."""
import hashlib

from parbench.kinds.exec.reference_output import ReferenceOutput, first_difference, from_file, mismatch


def test_the_first_differing_line_is_named_with_both_texts():
    assert first_difference("1\n2\n3\n", "1\n2\nx\n") == "line 3: expected '3', printed 'x'"


def test_a_missing_or_extra_line_and_a_trailing_difference_are_said():
    assert first_difference("1\n2\n", "1\n") == "1 line(s) printed where 2 were expected"
    assert first_difference("1\n", "1") == "1 characters printed where 2 were expected"


def test_the_same_bytes_are_no_mismatch_and_other_bytes_name_their_source(tmp_path):
    path = tmp_path / "expected"
    path.write_bytes(b"a\nb\n")
    reference = from_file(str(path))
    assert reference.digest == hashlib.sha256(b"a\nb\n").hexdigest()
    assert mismatch(reference, reference.digest, "a\nb\n") is None
    said = mismatch(reference, hashlib.sha256(b"a\nc\n").hexdigest(), "a\nc\n")
    assert said == f"its output differs from --expect-file {path}'s at the same parameters: line 2: expected 'b', printed 'c'"


def test_a_check_commands_output_is_a_reference_like_a_files():
    reference = ReferenceOutput(hashlib.sha256(b"x\n").hexdigest(), "x\n", "--check echo x")
    assert mismatch(reference, hashlib.sha256(b"y\n").hexdigest(), "y\n").startswith("its output differs from --check echo x's")


def test_binary_output_is_said_by_where_it_starts_to_differ_not_shown():
    assert first_difference("\xfd7zXZ\x00\x02ab", "\xfd7zXZ\x00\x04ab") == \
        "binary output, different from character 6 on (of the first 1,048,576 bytes)"
