"""A table's bundle: what one table's Pi needs to join the venue's broker, in one file (`broker
bundle` writes it from the broker's directory, `install table --bundle` reads it)."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from controller.errors import ConfigError, first_error
from controller.mqtt.broker_init import TABLE_ID, ClientCredentials, load_credentials, load_state
from controller.storage.private_files import write_private


class TableBundle(BaseModel):
    """What one table's Pi needs to join the venue's broker, in one file (`broker bundle`):
    its login, the CA to trust and where the broker is."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    venue: str = Field(pattern=r"^[a-z0-9][a-z0-9-]{0,39}$")
    table: str = Field(pattern=TABLE_ID)
    host: str
    port: int = Field(ge=1, le=65535)
    ca: str = Field(description="The venue CA (PEM)")
    login: ClientCredentials


def make_bundle(out: Path, client: str) -> TableBundle:
    """The bundle for ``client`` (``table-3``, or just ``3``)."""
    out = out.resolve()
    state = load_state(out)
    table = client.removeprefix("table-")
    if table not in state.tables:
        known = ", ".join(f"table-{t}" for t in state.tables)
        raise ConfigError(f"{out} has no table {table!r} (it has {known}); add it with "
                          f"`pokertable broker add-table {table} --broker-dir {out}`")
    login = load_credentials(out).get(f"table-{table}")
    if login is None:
        raise ConfigError(f"{out / 'credentials.json'} holds no login for table-{table}")
    ca = (out / "ca.crt").read_text(encoding="ascii")
    return TableBundle(venue=state.venue, table=table, host=state.hostnames[0],
                       port=state.tls_port, ca=ca, login=login)


def write_bundle(bundle: TableBundle, to: Path) -> None:
    """The bundle as JSON, 0600: it holds the table's password."""
    write_private(to, (bundle.model_dump_json(indent=2) + "\n").encode(), 0o600)


def read_bundle(path: Path) -> TableBundle:
    try:
        return TableBundle.model_validate_json(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read the bundle {path}: {exc.strerror}") from None
    except ValidationError as exc:
        raise ConfigError(f"{path} is not a table bundle from `broker bundle`: "
                          f"{first_error(exc, 'the file')}") from None

__all__ = ["TableBundle", "make_bundle", "read_bundle", "write_bundle"]
