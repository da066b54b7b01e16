"""Reading the files a person writes (table configurations, tournament structures, event
streams): every problem is a `ConfigError` of one line naming the file and what is wrong with
it, never a traceback."""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

import rtoml
from pydantic import BaseModel, ValidationError

from controller.errors import ConfigError, first_error

M = TypeVar("M", bound=BaseModel)


def read_text_file(path: Path, what: str) -> str:
    """The file as text, or a `ConfigError`: missing, a directory, not text."""
    if path.is_dir():
        raise ConfigError(f"{path}: is a directory, not {what}")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    try:
        if b"\x00" in data:
            raise UnicodeDecodeError("utf-8", data, 0, 1, "NUL byte")
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not a text file; expected {what}") from None


def read_toml_file(path: Path, what: str) -> dict[str, Any]:
    """The file's TOML document, or a `ConfigError` naming the first syntax error."""
    text = read_text_file(path, what)
    try:
        document: dict[str, Any] = rtoml.loads(text)
    except rtoml.TomlParsingError as exc:
        detail = str(exc).strip().splitlines()[0]
        raise ConfigError(f"{path}: not valid TOML: {detail}") from None
    return document


def read_toml_model(path: Path, model: type[M], what: str) -> M:
    """The file's TOML validated as ``model``, or a `ConfigError` naming the file and the
    first field that is wrong."""
    raw = read_toml_file(path, what)
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        raise ConfigError(f"{path}: {first_error(exc, 'the file', raw)}") from None
