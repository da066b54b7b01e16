"""The files a person writes (controller/inputs/text_files.py): every problem is one line that
names the file and what is wrong, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel, Field

from controller.errors import ConfigError
from controller.inputs.text_files import read_text_file, read_toml_file, read_toml_model


class Section(BaseModel):
    seats: int = Field(ge=2, le=10)
    name: str


class Table(BaseModel):
    table: Section


def _one_line(exc: pytest.ExceptionInfo[ConfigError], path: Path) -> str:
    text = str(exc.value)
    assert "\n" not in text and text.startswith(f"{path}: ")
    return text


def test_a_missing_file_a_directory_and_a_binary_file_are_each_one_line(tmp_path: Path) -> None:
    missing = tmp_path / "nope.toml"
    with pytest.raises(ConfigError) as exc:
        read_text_file(missing, "a table configuration")
    assert "cannot read it" in _one_line(exc, missing)
    with pytest.raises(ConfigError) as exc:
        read_text_file(tmp_path, "a table configuration")
    assert "is a directory" in _one_line(exc, tmp_path)
    binary = tmp_path / "table.toml"
    binary.write_bytes(b"seats = 9\x00\x01")
    with pytest.raises(ConfigError) as exc:
        read_text_file(binary, "a table configuration")
    assert "not a text file" in _one_line(exc, binary)


def test_bad_toml_names_the_first_syntax_error(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    path.write_text("[table]\nseats = = 9\n")
    with pytest.raises(ConfigError) as exc:
        read_toml_file(path, "a table configuration")
    assert "not valid TOML" in _one_line(exc, path)


def test_a_wrong_field_is_named_with_its_section(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    path.write_text('[table]\nseats = 12\nname = "1"\n')
    with pytest.raises(ConfigError) as exc:
        read_toml_model(path, Table, "a table configuration")
    assert "table.seats" in _one_line(exc, path)
    path.write_text('[table]\nseats = 9\nname = "1"\n')
    assert read_toml_model(path, Table, "a table configuration").table.seats == 9
