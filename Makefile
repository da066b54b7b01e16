# `make test` and `make demo` work on a fresh machine: they create .venv and install what they need.
# The interpreter the Pis and the host run where there is one: Debian's own python3, which
# deploy/install.sh makes each release's venv with. Debian builds it with profile-guided
# optimisation; where the first python3 on the PATH is a self-built one without (pyenv's, on
# the machines CI runs on), the pure-Python tests took 10-15% less CPU on Debian's (issue 37).
# Elsewhere: python3.
PYTHON ?= $(shell /usr/bin/python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
	2>/dev/null && echo /usr/bin/python3 || echo python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# pokerdf, the tracker-text tests' independent reader, says it needs Python 3.11.5 or later;
# Debian 12's is 3.11.2, on which every test of it passes. It goes in first without that check,
# its own dependencies with the rest as pyproject.toml pins them (its pin is read from there).
POKERDF := $(shell sed -n 's/^ *"\(pokerdf==[^"]*\)",.*/\1/p' pyproject.toml)

.PHONY: test lint typecheck unit demo demo-cash bench bench-quick clean mosquitto chromium systemd-analyze postgresql

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import ensurepip' 2>/dev/null || (apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet --no-deps --ignore-requires-python '$(POKERDF)'
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

test: lint typecheck unit

lint: $(STAMP)
	$(BIN)/ruff check controller drivers firmware harness tests bench
	$(BIN)/lint-imports --no-cache

typecheck: $(STAMP)
	$(BIN)/mypy

# Seven workers on two cores: the suite waits on brokers, browsers and subprocesses far more than it
# computes. With the suite's CPU cut (below), seven finished its 1,517 tests in 4m34 on a quiet
# machine where six took 5m10 (issue 37; before the cut: six 5m29, four 6m26, eight 7m02).
# Python keeps its compiled bytecode here even where the environment says not to (some images set
# PYTHONDONTWRITEBYTECODE: then each worker compiled every module it imported, 9 s of CPU to
# collect the tests where 3 s do, and so did each of the suite's hundreds of `pokertable`
# processes). A collecting pass writes the tests' bytecode (their asserts rewritten by pytest)
# before the workers read it: two passes at once, one per core (on a fresh clone 8 s where one
# pass took 12 s).
unit: export PYTHONDONTWRITEBYTECODE :=
unit: $(STAMP) mosquitto chromium systemd-analyze postgresql
	$(BIN)/python -m compileall -q -j 2 controller drivers harness
	$(BIN)/pytest -q --collect-only -p no:cacheprovider tests/room >/dev/null & \
	$(BIN)/pytest -q --collect-only -p no:cacheprovider --ignore=tests/room >/dev/null && wait $$!
	$(BIN)/pytest -q -n 7 --dist worksteal

# The MQTT tests run a real broker: Debian's mosquitto, installed when missing.
mosquitto:
	@test -x /usr/sbin/mosquitto || command -v mosquitto >/dev/null 2>&1 || \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mosquitto)

# The record store's tests run against a throwaway PostgreSQL cluster too: Debian's server
# (its binaries under /usr/lib/postgresql/<version>/bin; the tests run initdb themselves).
postgresql:
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql)

# The floor display's browser tests drive a real headless Chromium: Debian's headless shell (the
# browser without its window, what Playwright launches for a headless page; harness/chromium.py).
chromium:
	@test -x /usr/lib/chromium/chromium-headless-shell || \
		(apt-get update -qq && \
		 DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium-headless-shell)

# The installer's tests check the units with systemd's own tools (verify, security --offline).
systemd-analyze:
	@command -v systemd-analyze >/dev/null 2>&1 || \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq systemd)

# The whole room on this machine, live in a browser: open the URL it prints; Ctrl-C stops it.
# The tournament draws 24 players at the four tables and plays to one winner. Each demo's work
# stays in a new directory (its hands: records.db, for `pokertable hands`).
DEMO_KEEP ?= demo-room/$(shell date +%Y%m%d-%H%M%S)
# The floor display's port (`make demo FLOOR_PORT=8090` where 8080 is taken; 0: any free one)
FLOOR_PORT ?= 8080
DEMO_TABLES ?= 4
demo: $(STAMP) mosquitto
	$(BIN)/pokertable room --tables $(DEMO_TABLES) --tournament --sim-readers chips --keep $(DEMO_KEEP) \
		--floor-port $(FLOOR_PORT)

# The same room dealing cash games (docs/cash.md): hold'em and pot-limit Omaha, the cash floor
# seating players from its waiting lists (/cash), straddles, bomb pots, runs twice. Its tables
# read through PT1 boards (the lighter simulation: Omaha pitches four cards a seat, and the
# chip-level card readers of a loaded two-core machine can fall behind the simulated dealer).
demo-cash: $(STAMP) mosquitto
	$(BIN)/pokertable room --tables 4 --cash --keep $(DEMO_KEEP) --floor-port $(FLOOR_PORT)

# Every benchmark, one after another (bench/run_all.py): docs/performance.md is written from this
# run's output and README.md's summary block with it. The test suite's time is in it
# (BENCH_SUITE=0 leaves it out). bench-quick: each bench's quick mode, the suite left out, to
# $TMPDIR/pokertable-bench/performance.md; nothing in the repository changes.
bench: $(STAMP) mosquitto postgresql chromium systemd-analyze
	$(BIN)/python bench/run_all.py

bench-quick: $(STAMP) mosquitto postgresql
	$(BIN)/python bench/run_all.py --quick

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
