"""The ``wayfinding generate`` command refuses bad values in one line and writes nothing."""

import pytest

from wayfinding.cli import main


@pytest.mark.parametrize("argv", [
    ["generate", "maze", "OUT", "--width", "0"],
    ["generate", "caves", "OUT", "--seed", "-1"],
    ["generate", "random", "OUT", "--density", "1"],
    ["generate", "rooms", "OUT", "--per-bucket", "10000000000000000000000000000000"],
    ["generate", "city", "MISSING/out.map"],
])
def test_command_line_refuses_bad_values_in_one_line(argv, tmp_path, capsys):
    argv = [a.replace("OUT", str(tmp_path / "o.map")).replace("MISSING", str(tmp_path / "no"))
            for a in argv]
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "error" in err
    assert list(tmp_path.iterdir()) == []
