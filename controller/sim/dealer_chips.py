"""The simulated dealer's chip work (controller/sim/dealer.py): the chip case it picks chips
from, the blinds and antes pushed into the betting zones, the sweep into the pot at the end of a
betting round, change for an oversized chip, and a zone left short (a faulty dealer's doing,
controller/sim/soak.py) made whole again. A base of `SimulatedDealer`; the faulty dealer
overrides its moves."""

from __future__ import annotations

from controller.session.outputs import TableState
from controller.sim import cash as sim_cash
from controller.sim.hands import Chip, DealerHands, DealerStuck, Felt
from controller.sim.screen import zone_reads


class DealerChips:
    """Chips move only as tags between the case and the zones; what the table read is what lies
    there (``felt``). The dealer's own state it works on is set by `SimulatedDealer`."""

    hands: DealerHands
    felt: Felt
    # The chip case: value -> tags not on the felt, taken from the front and put back at the
    # end. (Taken from the end, the chip just swept off a zone was the next one posted there,
    # within a second: a reader that polls (a PN5180) hears a chip go only at its next
    # complete scans, and never saw that one go or come back; at a real table the swept chips
    # go to the pot and the winner's stack before any comes back.)
    free: dict[int, list[str]]
    shorted: dict[str, int]  # a zone short of its bet (a faulty dealer's doing)
    reads_chips: bool

    def _in_zone(self, zone: str) -> list[Chip]:
        return self.felt.chips.get(zone, [])

    def _pick(self, amount: int, below: int | None = None,
              leaving: frozenset[int] = frozenset()) -> list[Chip]:
        """Chips from the case making ``amount`` exactly, largest first (``below``: only chips
        of a smaller value; ``leaving``: none of these values, out of play since a
        colour-up)."""
        picked: list[Chip] = []
        left = amount
        for value in sorted(self.free, reverse=True):
            if (below is not None and value >= below) or value in leaving:
                continue
            while left >= value and self.free[value]:
                picked.append((self.free[value].pop(0), value))
                left -= value
        if left:
            self._to_case(picked)
            raise DealerStuck(f"the simulated chip case cannot make {amount:,}")
        return picked

    def _oversized(self, amount: int, limit: int) -> list[Chip] | None:
        """One chip larger than ``amount`` (and not over ``limit``), as a player might push."""
        for value in sorted(self.free):
            if amount < value <= limit and self.free[value]:
                return [(self.free[value].pop(0), value)]
        return None

    def _push(self, zone: str, chips: list[Chip]) -> None:
        self.hands.chips_in(zone, chips)

    def _take(self, zone: str) -> list[Chip]:
        chips = list(self._in_zone(zone))
        if chips:
            self.hands.chips_out(zone, chips)
        return chips

    def _to_case(self, chips: list[Chip]) -> None:
        for uid, value in chips:
            self.free.setdefault(value, []).append(uid)

    def _post_blinds(self, state: TableState, stacks: dict[int, int]) -> None:
        """Blinds and antes in the betting zones, as the players put them (RULES H4): each
        seat its blind and its ante, the big blind the big-blind ante too; a short stack all
        it has (``stacks``: before the hand)."""
        posted: dict[int, int] = {}
        agreed = sim_cash.variant_amount(state)  # a bomb pot's or flip's: no blinds, no antes
        for seat_no, view in state.seats.items():
            ante = state.blinds.ante + (state.blinds.bb_ante if seat_no == state.bb else 0)
            # (a blind from the seat, in case the round closed at once: everyone all in)
            blind = view.bet or (state.blinds.bb if seat_no == state.bb else
                                 state.blinds.sb if seat_no == state.sb else 0)
            if agreed:
                ante, blind = agreed, 0
            owed = min(blind + ante, stacks.get(seat_no, blind + ante))
            ante = min(ante, owed)  # a short stack pays the ante first (RULES R4)
            if view.in_hand and owed and not self._in_zone(f"seat:{seat_no}"):
                self._push(f"seat:{seat_no}", self._pick(owed))
                self.felt.antes[f"seat:{seat_no}"] = ante
                posted[seat_no] = owed
        self.felt.street = state.street
        # The blinds are out before the cards (seconds at a real table): the next chips in a
        # zone within the readers' settle time would read as one motion with the blind (a
        # call with one bigger chip, PVB 44(2), read as a raise of blind and chip together).
        self.hands.wait(lambda s: s.hand != state.hand or all(
            n not in s.seats or s.seats[n].zone == amount for n, amount in posted.items()))

    def _bets_out(self) -> bool:
        return any(chips for zone, chips in self.felt.chips.items() if zone.startswith("seat:"))

    def _sweep(self, state: TableState) -> None:
        """The betting round is over: the dealer pulls the bets into the pot zone, less an
        oversized chip's change and the part of the largest bet nobody called, which go back to
        their players (PVB 60(3): the amount nobody called goes back)."""
        zones = [z for z, chips in self.felt.chips.items() if z.startswith("seat:") and chips]
        held = {z: sum(v for _, v in self._in_zone(z)) - self.felt.change_due.get(z, 0)
                for z in zones}
        for zone in zones:  # a short zone's chips owed come out of its change (the table's way)
            repaid = min(self.shorted.get(zone, 0), self.felt.change_due.get(zone, 0))
            held[zone] += repaid
            self.shorted[zone] = self.shorted.get(zone, 0) - repaid
            if repaid and not self.shorted[zone]:
                self._healed(zone)
        short = {z: self.shorted.pop(z, 0) for z in zones}
        bets = sorted(((held[z] + short[z] - self.felt.antes.get(z, 0), z) for z in zones),
                      reverse=True)
        back = dict.fromkeys(zones, 0)
        if bets:
            top, top_zone = bets[0]
            second = bets[1][0] if len(bets) > 1 else 0
            back[top_zone] = max(0, top - second)
            repaid = min(short[top_zone], back[top_zone])  # ... and out of what goes back
            back[top_zone] -= repaid
            if repaid and repaid == short[top_zone]:
                self._healed(top_zone)
        swept: list[Chip] = []
        self.felt.antes.clear()  # swept with the bets
        for zone in zones:
            chips = self._take(zone)
            self.felt.change_due.pop(zone, None)
            into_pot = held[zone] - back[zone]
            if into_pot != sum(v for _, v in chips):  # change first: only the bet goes in
                self._to_case(chips)
                chips = self._pick(into_pot) if into_pot else []
            swept += chips
        if swept:
            self.hands.pause(0.05)
            self._push("pot", swept)
            pot = sum(v for _, v in self._in_zone("pot"))
            # Out of step is a false alert: the table must have read the sweep (every betting
            # zone empty, the pot zone whole) before the dealer deals on.
            self.hands.wait(lambda s: s.hand != state.hand or s.stage in ("over", "waiting") or (
                s.pot_zone == pot and all(not v.zone for v in s.seats.values())))
        self.felt.street = state.street

    def _forget_repaid(self, state: TableState) -> None:
        """A zone left short (a faulty dealer's doing) whose seat has put chips in since, read
        by the table as a bet the zone now holds whole: nothing is short any more."""
        for zone in list(self.shorted):
            if int(zone[5:]) == state.actor:  # its chips may not be read yet
                continue
            view = state.seats.get(int(zone[5:]))
            held = sum(v for _, v in self._in_zone(zone)) - self.felt.change_due.get(zone, 0)
            if view is not None and held >= view.bet + self.felt.antes.get(zone, 0):
                del self.shorted[zone]
                self._healed(zone)

    def _healed(self, zone: str) -> None:
        """A zone left short is whole again: the player's next chips made up for it."""

    def _make_change(self, state: TableState) -> None:
        """A zone holding more than the seat's bet (an oversized chip called): the dealer
        swaps it for the bet and gives the rest back."""
        for seat_no, view in state.seats.items():
            zone = f"seat:{seat_no}"
            held = sum(v for _, v in self._in_zone(zone))
            due = view.bet + self.felt.antes.get(zone, 0)
            if held > due and seat_no != state.actor and view.in_hand:
                self.felt.change_due.pop(zone, None)
                held_chips = list(self._in_zone(zone))
                self._to_case(held_chips)
                self.hands.swap(zone, held_chips, self._pick(due))
                self.hands.wait(zone_reads(state.hand, seat_no, due))
                if self.shorted.pop(zone, 0):  # the zone holds the table's bet: whole again
                    self._healed(zone)

    def _clear_zones(self) -> None:
        """Between hands no chip lies in a zone (a count or a race cut short by a restart):
        back to the case."""
        for zone in [z for z, chips in self.felt.chips.items() if chips]:
            self._to_case(self._take(zone))
