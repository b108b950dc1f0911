"""targets.py: a file is replaced whole (a link to it stays a link), a device or FIFO is written
through, a folder, a disk or a socket is refused."""
import os
import stat

import pytest

from parbench import targets


def test_a_file_is_replaced_whole_keeping_its_permissions(tmp_path):
    path = tmp_path / "r.json"
    path.write_text("old")
    path.chmod(0o640)
    targets.write_text(path, "new")
    assert path.read_text() == "new" and stat.S_IMODE(path.stat().st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]            # no .partial left


def test_a_link_to_a_file_stays_a_link_and_its_file_is_replaced(tmp_path):
    (tmp_path / "real.json").write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "real.json")
    targets.write_text(link, "new")
    assert link.is_symlink() and (tmp_path / "real.json").read_text() == "new"


def test_a_character_device_is_written_through_and_stays_a_device(tmp_path):
    device = tmp_path / "null"
    os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    targets.write_text(device, "anything")
    assert stat.S_ISCHR(os.stat(device).st_mode) and targets.problem(device) is None


@pytest.mark.parametrize("make, what", [(lambda p: p.mkdir(), "a folder")])
def test_a_folder_is_refused_before_and_when_written(tmp_path, make, what):
    path = tmp_path / "t"
    make(path)
    assert targets.problem(path) == f"cannot write {path}: it is {what}"
    with pytest.raises(targets.Unwritable, match=what):
        targets.write_text(path, "x")


def test_a_path_under_a_file_is_a_problem_not_a_traceback(tmp_path):
    (tmp_path / "plain").write_text("x")
    assert targets.problem(tmp_path / "plain" / "r.json").startswith(f"cannot write {tmp_path}")


def test_a_device_given_as_a_folder_is_refused_as_a_device_not_with_file_exists(tmp_path):
    """Issue 46: `--out /dev/full` said "File exists"."""
    device = tmp_path / "full"
    os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    assert targets.folder_refusal(device) == f"{device} is a device, not a folder"
    (tmp_path / "plain").write_text("")
    assert targets.folder_refusal(tmp_path / "plain" / "deeper") == f"{tmp_path / 'plain'} is a file, not a folder"


# --- what parbench reads at a path a user named ----------------------------------------------
def test_a_regular_file_is_read_whole_within_its_bound(tmp_path):
    path = tmp_path / "j.jsonl"
    path.write_bytes(b"x" * 100)
    assert targets.read_bounded(path, 100) == b"x" * 100
    with pytest.raises(targets.UnreadableFile, match="100 bytes, more than the 99"):
        targets.read_bounded(path, 99)


@pytest.mark.parametrize("make, kind", [
    (lambda p: os.mkfifo(p), "a FIFO"),                         # would wait for a writer forever
    (lambda p: p.symlink_to("/dev/zero"), "a character device"),  # endless
    (lambda p: p.mkdir(), "a folder"),
])
def test_what_is_not_a_regular_file_is_refused_before_a_byte_is_read(tmp_path, make, kind):
    path = tmp_path / "thing"
    make(path)
    with pytest.raises(targets.UnreadableFile, match=f"^{kind}, not a regular file$"):
        targets.read_bounded(path, 1 << 20)
    with pytest.raises(targets.UnreadableFile):
        targets.open_regular(path)


def test_a_file_that_grows_past_the_bound_while_read_stops_there(tmp_path):
    path = tmp_path / "grows"
    path.write_bytes(b"y" * 10)
    fd = targets.open_regular(path)
    try:
        with open(path, "ab") as more:
            more.write(b"y" * (3 << 20))
        with pytest.raises(targets.UnreadableFile, match="more than the 1,048,576 bytes"):
            b"".join(targets.chunks(fd, 1 << 20))
    finally:
        os.close(fd)
