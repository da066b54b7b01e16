"""Presence: repeated reads are one card; removal by timeout or by the reader. R9 settling."""

from __future__ import annotations

from drivers.presence import Presence, ZoneSettler


def test_repeated_reads_are_one_arrival_and_time_out() -> None:
    presence = Presence(timeout=0.5)
    assert presence.report(3, "AA", now=0.0)
    for t in (0.1, 0.2, 0.6, 1.0):
        assert not presence.report(3, "AA", now=t)  # the module repeats while the tag is there
    assert presence.expire(now=1.4) == []
    assert presence.expire(now=1.5) == [(3, "AA")]
    assert presence.report(3, "AA", now=2.0)  # back again: a new arrival


def test_explicit_removal_and_antennas_apart() -> None:
    presence = Presence(timeout=1.0)
    presence.report(1, "AA", 0.0)
    presence.report(2, "AA", 0.0)  # the same tag moved over two antennas
    assert presence.remove(1, "AA") and not presence.remove(1, "AA")
    assert presence.present(2) == {"AA"} and presence.present(1) == set()
    assert presence.clear() == [(2, "AA")]


def test_r9_zone_reports_once_after_it_stays_still() -> None:
    settler = ZoneSettler(settle=0.4)
    settler.changed(5, now=0.0)
    settler.changed(5, now=0.3)  # still moving chips in: one motion
    assert settler.due(now=0.6) == []
    assert settler.due(now=0.75) == [5]
    assert settler.due(now=5.0) == []
