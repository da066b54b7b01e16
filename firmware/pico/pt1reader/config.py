"""The board's configuration: config.json on the Pico, read once at power-up (docs/firmware.md).

    {"serial": "cards",
     "spi": {"id": 0, "sck": 18, "mosi": 19, "miso": 16, "baudrate": 4000000},
     "maintenance_pin": 22,
     "antennas": [{"antenna": 0, "chip": "mfrc522", "cs": 0},
                  {"antenna": 11, "chip": "pn5180", "cs": 11, "busy": 15}]}

Checked whole before the board takes over the USB port, so that a mistake leaves the REPL
there with a sentence naming it.

The USB identity: the table's udev rule (`pokertable install table`) matches the manufacturer
"pokertable" and names the tty /dev/pokertable/<serial>; udev's own by-id name is
/dev/serial/by-id/usb-pokertable_PT1_<serial>-if00.
"""

MANUFACTURER = "pokertable"
PRODUCT = "PT1"
CHIPS = ("mfrc522", "pn5180")
MAX_ANTENNAS = 32  # PT1 numbers antennas 0 to 31
# The Pico's GPIOs on its header: GP0 to GP22 and GP26 to GP28 (GP23 to GP25 and GP29 drive the
# power supply, sense VBUS, light the LED and measure VSYS).
PINS = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 26, 27,
        28)
# Which GPIO can carry which SPI signal (RP2040 datasheet, function select table).
SPI_PINS = {
    0: {"sck": (2, 6, 18, 22), "mosi": (3, 7, 19), "miso": (0, 4, 16, 20)},
    1: {"sck": (10, 14, 26), "mosi": (11, 15, 27), "miso": (8, 12, 28)},
}  # type: dict[int, dict[str, tuple[int, ...]]]
MAX_BAUDRATE = {"mfrc522": 10_000_000, "pn5180": 7_000_000}  # the chips' datasheets


class ConfigError(ValueError):
    pass


class Spi:
    def __init__(self, id: int, sck: int, mosi: int, miso: int, baudrate: int) -> None:
        self.id, self.sck, self.mosi, self.miso, self.baudrate = id, sck, mosi, miso, baudrate


class Antenna:
    def __init__(self, number: int, chip: str, cs: int, busy: int) -> None:
        self.number, self.chip, self.cs, self.busy = number, chip, cs, busy  # busy -1: none


class Config:
    def __init__(self, serial: str, spi: Spi, antennas: "list[Antenna]",
                 maintenance_pin: int) -> None:
        self.serial, self.spi, self.antennas = serial, spi, antennas
        self.maintenance_pin = maintenance_pin


def _int(raw: "dict[str, object]", key: str, where: str, low: int, high: int,
         default: "int | None" = None) -> int:
    value = raw.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise ConfigError(f"{where}: '{key}' must be a whole number from {low} to {high}, "
                          f"not {value!r}")
    return value


def _pin(raw: "dict[str, object]", key: str, where: str, default: "int | None" = None) -> int:
    pin = _int(raw, key, where, 0, 28, default)
    if pin not in PINS:
        raise ConfigError(f"{where}: '{key}' is GP{pin}, which the Pico does not bring out "
                          "(GP0 to GP22, GP26 to GP28)")
    return pin


def _table(raw: object, where: str) -> "dict[str, object]":
    if not isinstance(raw, dict):
        raise ConfigError(f"{where} must be a JSON object {{...}}")
    return raw


def parse(raw: object) -> Config:
    """The configuration from the parsed JSON, or `ConfigError` saying what is wrong."""
    top = _table(raw, "config.json")
    for key in top:
        if key not in ("serial", "spi", "antennas", "maintenance_pin"):
            raise ConfigError(f"config.json: unknown key '{key}'")
    serial = top.get("serial")
    if not isinstance(serial, str) or not 0 < len(serial) <= 32 or not all(
            c in "abcdefghijklmnopqrstuvwxyz0123456789-_" for c in serial):
        raise ConfigError("config.json: 'serial' names the reader for the table's Pi "
                          "(/dev/pokertable/<serial>): 1 to 32 of a-z, 0-9, - and _, such as "
                          f"'cards' or 'chips'; not {serial!r}")
    spi_raw = _table(top.get("spi", {}), "config.json: 'spi'")
    for key in spi_raw:
        if key not in ("id", "sck", "mosi", "miso", "baudrate"):
            raise ConfigError(f"spi: unknown key '{key}'")
    bus = _int(spi_raw, "id", "spi", 0, 1, 0)
    defaults = {"sck": 18, "mosi": 19, "miso": 16} if bus == 0 else {}
    used = {}  # type: dict[int, str]
    pins = []
    for signal in ("sck", "mosi", "miso"):
        pin = _pin(spi_raw, signal, "spi", defaults.get(signal))
        if pin not in SPI_PINS[bus][signal]:
            allowed = ", GP".join(str(p) for p in SPI_PINS[bus][signal])
            raise ConfigError(f"spi: SPI{bus}'s {signal.upper()} can be on GP{allowed}, "
                              f"not GP{pin}")
        _claim(used, pin, f"SPI{bus} {signal.upper()}")
        pins.append(pin)
    baudrate = _int(spi_raw, "baudrate", "spi", 100_000, 10_000_000, 4_000_000)
    spi = Spi(bus, pins[0], pins[1], pins[2], baudrate)
    maintenance = _pin(top, "maintenance_pin", "config.json", 22)
    _claim(used, maintenance, "the maintenance pin")
    antennas = _antennas(top.get("antennas"), used)
    for antenna in antennas:
        if spi.baudrate > MAX_BAUDRATE[antenna.chip]:
            limit = MAX_BAUDRATE[antenna.chip]
            raise ConfigError(f"spi: 'baudrate' {spi.baudrate} is more than the "
                              f"{antenna.chip.upper()} takes ({limit})")
    return Config(serial, spi, antennas, maintenance)


def _claim(used: "dict[int, str]", pin: int, what: str) -> None:
    if pin in used:
        raise ConfigError(f"GP{pin} cannot be both {used[pin]} and {what}")
    used[pin] = what


def _antennas(raw: object, used: "dict[int, str]") -> "list[Antenna]":
    if not isinstance(raw, list) or not 0 < len(raw) <= MAX_ANTENNAS:
        raise ConfigError(f"config.json: 'antennas' must list 1 to {MAX_ANTENNAS} antennas")
    antennas = []
    busy_pins = []  # type: list[int]
    numbers = []  # type: list[int]
    for k in range(len(raw)):
        where = f"antennas[{k}]"
        entry = _table(raw[k], where)
        for key in entry:
            if key not in ("antenna", "chip", "cs", "busy"):
                raise ConfigError(f"{where}: unknown key '{key}'")
        number = _int(entry, "antenna", where, 0, MAX_ANTENNAS - 1)
        if number in numbers:
            raise ConfigError(f"{where}: antenna {number} is listed twice")
        numbers.append(number)
        chip = entry.get("chip")
        if chip not in CHIPS:
            raise ConfigError(f"{where}: 'chip' must be 'mfrc522' or 'pn5180', not {chip!r}")
        assert isinstance(chip, str)
        cs = _pin(entry, "cs", where)
        _claim(used, cs, f"the chip select of antenna {number}")
        busy = -1
        if chip == "pn5180":
            if "busy" not in entry:
                raise ConfigError(f"{where}: a PN5180 needs 'busy', the GPIO its BUSY line "
                                  "is on")
            busy = _pin(entry, "busy", where)
            if busy not in busy_pins:  # the modules' BUSY lines may share one pin (diodes)
                _claim(used, busy, "a BUSY line")
                busy_pins.append(busy)
        elif "busy" in entry:
            raise ConfigError(f"{where}: an MFRC522 has no BUSY line")
        antennas.append(Antenna(number, chip, cs, busy))
    return antennas
